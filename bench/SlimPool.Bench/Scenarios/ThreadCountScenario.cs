using System.Diagnostics;
using SlimPool.Bench.Pools;
using SlimPool.Bench.Reporting;

namespace SlimPool.Bench.Scenarios;

/// <summary>
/// Seed 003: 100,000 tiny items (each an interlocked increment) on pools with 2, 25 and 200 workers: more
/// threads is not faster. Runs the naive one-lock pool and each SlimPool configuration chosen; the built-in pool
/// (which sizes itself) runs once per table as the reference.
/// </summary>
internal sealed class ThreadCountScenario : IScenario
{
    private static readonly Action<object?> s_work = static state => ((Completion)state!).Signal();

    public string Name => "thread-count";

    public string Description => "seed 003: 100,000 tiny items with 2, 25 and 200 workers; the naive one-lock pool and SlimPool";

    public IEnumerable<CaseResult> Run(ScenarioContext context)
    {
        int items = context.Size(quick: 20_000, standard: 100_000, full: 100_000);
        IReadOnlyList<int> workerCounts = context.Settings.Workers is { Count: > 0 } given ? given : [2, 25, 200];
        var pools = new List<(string Name, Func<int, IThreadPool> Create)> { ("Naive", n => new NaiveThreadPool(n)) };
        foreach (PoolDefinition definition in context.Pools)
        {
            pools.Add((definition.Name, n => definition.Create(n)));
        }

        foreach (int workers in workerCounts)
        {
            string label = $"{workers} workers, {items:N0} items";
            var rows = new List<PoolResult>();
            foreach ((string name, Func<int, IThreadPool> create) in pools)
            {
                context.Report($"thread-count {label}: {name}");
                List<double> wall;
                using (IThreadPool pool = create(workers))
                {
                    wall = context.Repeat(() => RunOnce(pool, items));
                }

                string shown = name.StartsWith(PoolCatalog.BaselineName, StringComparison.Ordinal) ? name : $"{name} ×{workers}";
                rows.Add(new PoolResult(name == PoolCatalog.BaselineName ? name : shown, [new Metric("wall", "ms", wall)]));
            }

            yield return new CaseResult(Name, label, rows, "ThreadPool sizes itself; its row is the reference, not a 'workers' setting.");
        }
    }

    private static double RunOnce(IThreadPool pool, int items)
    {
        var run = new Completion(items);
        long start = Stopwatch.GetTimestamp();
        for (int i = 0; i < items; i++)
        {
            pool.Queue(s_work, run);
        }

        run.Wait("thread-count");
        return ScenarioContext.Milliseconds(start);
    }
}
