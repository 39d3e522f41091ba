using System.Diagnostics;
using SlimPool.Bench.Pools;
using SlimPool.Bench.Running;
using SlimPool.Bench.Work;

namespace SlimPool.Bench.Scenarios;

/// <summary>
/// Seed 003: 100,000 empty items from one outside thread on pools of exactly 2, 25 and 200 threads (the built-in
/// pool with its minimum and maximum both set to N, SlimPool with N workers, the naive one-lock pool with N
/// threads): more threads is not faster.
/// </summary>
internal sealed class ThreadCountScenario : IScenario
{
    public string Name => "thread-count";

    public string Description => "seed 003: 100,000 empty items on pools fixed at 2, 25 and 200 threads, the naive one-lock pool too";

    public IReadOnlyList<BenchCase> Cases(CaseContext context)
    {
        int items = context.Size(quick: 20_000, standard: 100_000, full: 100_000);
        return [.. (context.Workers ?? [2, 25, 200]).Select(n => new Case($"{n}-threads", $"{n} threads, {items:N0} empty items", items)
        {
            Setup = new PoolSetup(Workers: n, MaxThreads: n, FixedThreads: true),
            ExtraPools = ["Naive"],
            Extended = context.Workers is null && n != 2,
        })];
    }

    public Measurement Measure<TPool>(BenchCase benchCase, TPool pool)
        where TPool : struct, IBenchPool
    {
        var c = (Case)benchCase;
        return Measurement.WarmUpThenMeasure(() =>
        {
            var countdown = new StripedCountdown(c.Items);
            CountdownItem[] items = CountdownItem.ForEachStripe(countdown);

            long start = Stopwatch.GetTimestamp();
            for (int i = 0; i < c.Items; i++)
            {
                pool.Queue(items[i % items.Length]);
            }

            countdown.Wait("thread-count");
            return new Measurement([new("wall", "ms", Stopwatch.GetElapsedTime(start).TotalMilliseconds), new("threads", "count", pool.ThreadCount, "0")]);
        });
    }

    private sealed record Case(string Key, string Label, int Items) : BenchCase(Key, Label);
}
