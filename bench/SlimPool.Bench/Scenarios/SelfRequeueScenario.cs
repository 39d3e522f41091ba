using System.Diagnostics;
using SlimPool.Bench.Pools;
using SlimPool.Bench.Running;
using SlimPool.Bench.Work;

namespace SlimPool.Bench.Scenarios;

/// <summary>
/// Each item queues its successor from inside the pool, 64 chains in flight: the local path (the built-in pool's
/// <c>preferLocal: true</c>, SlimPool's worker deque). Each chain counts its own steps (a stripe of its own); the
/// last step of a chain signals the run.
/// </summary>
internal sealed class SelfRequeueScenario : IScenario
{
    private const int Chains = 64;

    public string Name => "self-requeue";

    public string Description => "each item queues its successor from inside the pool (preferLocal); 64 chains in flight";

    public IReadOnlyList<BenchCase> Cases(CaseContext context)
    {
        int total = context.Size(quick: 256_000, standard: 1_280_000, full: 16_000_000);
        return [new Case("chains", $"{Chains} chains, {total:N0} items", total)];
    }

    public Measurement Measure<TPool>(BenchCase benchCase, TPool pool)
        where TPool : struct, IBenchPool
    {
        var c = (Case)benchCase;
        return Measurement.WarmUpThenMeasure(() =>
        {
            var countdown = new StripedCountdown(Chains, Chains);
            var chains = new Chain<TPool>[Chains];
            for (int i = 0; i < Chains; i++)
            {
                chains[i] = new Chain<TPool>(pool, countdown, i, c.Items / Chains);
            }

            long start = Stopwatch.GetTimestamp();
            foreach (Chain<TPool> chain in chains)
            {
                pool.Queue(chain);
            }

            countdown.Wait("self-requeue");
            double ms = Stopwatch.GetElapsedTime(start).TotalMilliseconds;
            return new Measurement(
            [
                new("wall", "ms", ms),
                new("per item", "ns", ms * 1e6 / c.Items, "0.0"),
            ]);
        });
    }

    private sealed record Case(string Key, string Label, int Items) : BenchCase(Key, Label);

    private sealed class Chain<TPool>(TPool pool, StripedCountdown countdown, int stripe, int length) : BenchWorkItem
        where TPool : struct, IBenchPool
    {
        private int _left = length; // touched by one step at a time: each step queues the next

        public override void Execute()
        {
            if (--_left > 0)
            {
                pool.QueueFromPool(this);
            }
            else
            {
                countdown.Signal(stripe);
            }
        }
    }
}
