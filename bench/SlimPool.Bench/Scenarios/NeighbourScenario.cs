using System.Diagnostics;
using SlimPool.Bench.Pools;
using SlimPool.Bench.Running;
using SlimPool.Bench.Work;

namespace SlimPool.Bench.Scenarios;

/// <summary>
/// What a pool's burst costs the built-in pool next to it: a burst of 100,000 empty items on the pool under test,
/// then at once (within the same millisecond) a batch of 4,000 items of 10 µs on the built-in pool, called directly;
/// then, after 200 ms in which the pool under test goes idle, the same batch again. Every process has a built-in
/// pool (timers, sockets, libraries), so workers that keep spinning after a burst take cores from it. The reference
/// row is the built-in pool next to itself: its burst and the batch share its threads.
/// </summary>
internal sealed class NeighbourScenario : IScenario
{
    private const int BurstItems = 100_000;

    private const int BatchItems = 4_000;

    public string Name => "neighbour";

    public string Description => "the built-in pool's work right after a burst on the pool under test, against the same work once that pool is idle";

    public IReadOnlyList<BenchCase> Cases(CaseContext context) =>
        [new Case("after-burst", $"{BatchItems:N0} built-in pool items of 10 µs, started right after a burst of {BurstItems:N0} empty items", context.Iterations(10_000))
        {
            Note = "speed vs idle: the batch's time 200 ms later divided by its time right after the burst (1.00: the burst cost nothing)",
        }];

    public Measurement Measure<TPool>(BenchCase benchCase, TPool pool)
        where TPool : struct, IBenchPool
    {
        var c = (Case)benchCase;
        return Measurement.WarmUpThenMeasure(() =>
        {
            var burst = new StripedCountdown(BurstItems);
            CountdownItem[] items = CountdownItem.ForEachStripe(burst);
            for (int i = 0; i < BurstItems; i++)
            {
                pool.Queue(items[i % items.Length]);
            }

            burst.Wait("neighbour burst");
            double afterMs = RunBatch(c.Iterations);
            Thread.Sleep(200);
            double idleMs = RunBatch(c.Iterations);
            return new Measurement(
            [
                new("after burst", "ms", afterMs, "0.00"),
                new("idle", "ms", idleMs, "0.00"),
                new("speed vs idle", "x", idleMs / afterMs, "0.00"),
            ]);
        });
    }

    // The neighbour's work always goes to the built-in pool, whichever pool made the burst.
    private static double RunBatch(long iterations)
    {
        var countdown = new StripedCountdown(BatchItems);
        var items = new WorkItem[countdown.Stripes];
        for (int s = 0; s < items.Length; s++)
        {
            items[s] = new WorkItem(countdown, s, iterations);
        }

        var builtIn = new BuiltInPool();
        long start = Stopwatch.GetTimestamp();
        for (int i = 0; i < BatchItems; i++)
        {
            builtIn.Queue(items[i % items.Length]);
        }

        countdown.Wait("neighbour batch");
        return Stopwatch.GetElapsedTime(start).TotalMilliseconds;
    }

    private sealed record Case(string Key, string Label, long Iterations) : BenchCase(Key, Label);

    private sealed class WorkItem(StripedCountdown countdown, int stripe, long iterations) : BenchWorkItem
    {
        public override void Execute()
        {
            CpuWork.Run(iterations);
            countdown.Signal(stripe);
        }
    }
}
