using System.Diagnostics;
using SlimPool.Bench.Pools;
using SlimPool.Bench.Reporting;

namespace SlimPool.Bench.Scenarios;

/// <summary>
/// Each item queues its successor from inside the pool, many chains in flight: the path a work-stealing
/// pool keeps local (16M items at <c>--full</c>).
/// </summary>
internal sealed class SelfRequeueScenario : IScenario
{
    private const int Chains = 64;

    public string Name => "self-requeue";

    public string Description => "each item queues its successor from inside the pool; 64 chains in flight";

    public IEnumerable<CaseResult> Run(ScenarioContext context)
    {
        int total = context.Size(quick: 128_000, standard: 1_280_000, full: 16_000_000);
        string label = $"{Chains} chains, {total:N0} items";
        var rows = new List<PoolResult>();
        foreach (PoolDefinition definition in context.Pools)
        {
            List<double> wall = context.RepeatOn(definition, $"self-requeue {label}", pool => RunOnce(pool, total));

            rows.Add(new PoolResult(definition.Name,
            [
                new Metric("wall", "ms", wall),
                new Metric("throughput", "items/s", [.. wall.Select(ms => total / (ms / 1e3))], "N0"),
            ]));
        }

        yield return new CaseResult(Name, label, rows);
    }

    private static double RunOnce(IThreadPool pool, int total)
    {
        var run = new Completion(total);
        long start = Stopwatch.GetTimestamp();
        for (int c = 0; c < Chains; c++)
        {
            var chain = new Chain(pool, run, total / Chains);
            pool.Queue(Chain.Step, chain);
        }

        run.Wait("self-requeue");
        return ScenarioContext.Milliseconds(start);
    }

    private sealed class Chain(IThreadPool pool, Completion run, int length)
    {
        public static readonly Action<object?> Step = Run;

        private readonly IThreadPool _pool = pool;
        private readonly Completion _run = run;
        private int _left = length; // touched by one item at a time: each step queues the next

        private static void Run(object? state)
        {
            var chain = (Chain)state!;
            if (--chain._left > 0)
            {
                chain._pool.Queue(Step, chain);
            }

            chain._run.Signal();
        }
    }
}
