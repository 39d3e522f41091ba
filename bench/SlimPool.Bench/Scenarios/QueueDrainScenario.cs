using System.Diagnostics;
using SlimPool.Bench.Pools;
using SlimPool.Bench.Reporting;

namespace SlimPool.Bench.Scenarios;

/// <summary>
/// Seed 002's harness: empty items, queueing separated from draining (every item first waits on a gate, so
/// the workers hold the first items and the rest pile up) and interleaved (no gate); queue cost, drain cost,
/// total, GC collections and bytes allocated per item (process-wide, so the built-in pool's own allocations
/// count).
/// </summary>
internal sealed class QueueDrainScenario : IScenario
{
    private static readonly Action<object?> s_work = static state => ((GatedRun)state!).Execute();

    public string Name => "queue-drain";

    public string Description => "seed 002: empty items; queue cost, drain cost, GC counts and bytes per item, separated and interleaved";

    public IEnumerable<CaseResult> Run(ScenarioContext context)
    {
        int items = context.Size(quick: 100_000, standard: 500_000, full: 1_000_000);
        foreach (bool separated in new[] { true, false })
        {
            string label = $"{(separated ? "separated (gate)" : "interleaved")}, {items:N0} empty items";
            var rows = new List<PoolResult>();
            foreach (PoolDefinition definition in context.Pools)
            {
                List<Sample> samples = context.RepeatOn(definition, $"queue-drain {label}", pool => RunOnce(pool, items, separated));

                rows.Add(new PoolResult(definition.Name,
                [
                    new Metric("total", "ms", [.. samples.Select(s => s.QueueMs + s.DrainMs)]),
                    new Metric("queue", "ms", [.. samples.Select(s => s.QueueMs)]),
                    new Metric("drain", "ms", [.. samples.Select(s => s.DrainMs)]),
                    new Metric("gen0", "count", [.. samples.Select(s => (double)s.Gen0)], "0"),
                    new Metric("gen1", "count", [.. samples.Select(s => (double)s.Gen1)], "0"),
                    new Metric("gen2", "count", [.. samples.Select(s => (double)s.Gen2)], "0"),
                    new Metric("allocated", "B/item", [.. samples.Select(s => s.BytesPerItem)], "0.0"),
                ]));
            }

            yield return new CaseResult(Name, label, rows);
        }
    }

    private static Sample RunOnce(IThreadPool pool, int items, bool separated)
    {
        var run = new GatedRun(items, gateOpen: !separated);
        int gen0 = GC.CollectionCount(0), gen1 = GC.CollectionCount(1), gen2 = GC.CollectionCount(2);
        long allocated = GC.GetTotalAllocatedBytes(precise: true);

        long start = Stopwatch.GetTimestamp();
        for (int i = 0; i < items; i++)
        {
            pool.Queue(s_work, run);
        }

        double queueMs = ScenarioContext.Milliseconds(start);
        long drainStart = Stopwatch.GetTimestamp();
        run.Open();
        run.Wait("queue-drain");
        double drainMs = ScenarioContext.Milliseconds(separated ? drainStart : start) - (separated ? 0 : queueMs);

        return new Sample(
            queueMs,
            drainMs,
            GC.CollectionCount(0) - gen0,
            GC.CollectionCount(1) - gen1,
            GC.CollectionCount(2) - gen2,
            (GC.GetTotalAllocatedBytes(precise: true) - allocated) / (double)items);
    }

    private readonly record struct Sample(double QueueMs, double DrainMs, int Gen0, int Gen1, int Gen2, double BytesPerItem);

    private sealed class GatedRun(long items, bool gateOpen) : Completion(items)
    {
        private readonly ManualResetEventSlim _gate = new(gateOpen);

        public void Open() => _gate.Set();

        public void Execute()
        {
            if (!_gate.IsSet)
            {
                _gate.Wait();
            }

            Signal();
        }
    }
}
