using System.Diagnostics;
using SlimPool.Bench.Pools;
using SlimPool.Bench.Running;
using SlimPool.Bench.Work;

namespace SlimPool.Bench.Scenarios;

/// <summary>
/// Seed 002's harness on empty items queued from one outside thread: interleaved (the pool runs items while they
/// arrive: the "one million empty items" number) and separated (every item first waits on a gate, so the workers
/// hold the first items and the rest pile up; then the gate opens). Queue cost, drain cost, GC collections and
/// bytes allocated per item (process-wide, so the pool's own allocations count).
/// </summary>
internal sealed class QueueDrainScenario : IScenario
{
    /// <summary>Items per call in the batched cases (their counts are rounded down to a multiple of it).</summary>
    private const int BatchLength = 256;

    public string Name => "queue-drain";

    public string Description => "seed 002: empty items from one outside thread; queue cost, drain cost, GC, bytes per item; interleaved and separated";

    public IReadOnlyList<BenchCase> Cases(CaseContext context)
    {
        int items = context.Size(quick: 200_000, standard: 1_000_000, full: 1_000_000);
        int batched = items / BatchLength * BatchLength;
        return
        [
            new Case("interleaved", $"{items:N0} empty items, interleaved (queued while the pool runs them)", items, Separated: false),
            new Case("separated", $"{items:N0} empty items, separated (a gate holds the workers until all are queued)", items, Separated: true),
            new Case("interleaved-batch", $"{batched:N0} empty items, interleaved, queued {BatchLength} a call (SlimPool's QueueBatch; the built-in pool has no batch form)", batched, Separated: false, Batched: true)
            {
                Extended = true,
            },
            new Case("separated-batch", $"{batched:N0} empty items, separated, queued {BatchLength} a call", batched, Separated: true, Batched: true)
            {
                Extended = true,
            },
        ];
    }

    public Measurement Measure<TPool>(BenchCase benchCase, TPool pool)
        where TPool : struct, IBenchPool
    {
        var c = (Case)benchCase;
        return Measurement.WarmUpThenMeasure(() => RunOnce(pool, c));
    }

    private static Measurement RunOnce<TPool>(TPool pool, Case c)
        where TPool : struct, IBenchPool
    {
        var countdown = new StripedCountdown(c.Items);
        using var gate = new ManualResetEventSlim(!c.Separated);
        var items = new GatedItem[countdown.Stripes];
        for (int s = 0; s < items.Length; s++)
        {
            items[s] = new GatedItem(countdown, s, gate);
        }

        int gen0 = GC.CollectionCount(0);
        long allocated = GC.GetTotalAllocatedBytes(precise: true);
        // A batch is the same items in the same order: BatchLength of them a call.
        BenchWorkItem[] batch = [.. Enumerable.Range(0, BatchLength).Select(i => items[i % items.Length])];
        long start = Stopwatch.GetTimestamp();
        if (c.Batched)
        {
            for (int i = 0; i < c.Items; i += BatchLength)
            {
                pool.QueueBatch(batch);
            }
        }
        else
        {
            for (int i = 0; i < c.Items; i++)
            {
                pool.Queue(items[i % items.Length]);
            }
        }

        long queued = Stopwatch.GetTimestamp();
        gate.Set();
        countdown.Wait("queue-drain");
        long end = Stopwatch.GetTimestamp();

        double totalMs = Stopwatch.GetElapsedTime(start, end).TotalMilliseconds;
        return new Measurement(
        [
            new("total", "ms", totalMs),
            new("queue", "ms", Stopwatch.GetElapsedTime(start, queued).TotalMilliseconds),
            new("drain", "ms", Stopwatch.GetElapsedTime(queued, end).TotalMilliseconds),
            new("per item", "ns", totalMs * 1e6 / c.Items, "0.0"),
            new("gen0", "count", GC.CollectionCount(0) - gen0, "0"),
            new("allocated", "B/item", (GC.GetTotalAllocatedBytes(precise: true) - allocated) / (double)c.Items, "0.0"),
        ]);
    }

    private sealed record Case(string Key, string Label, int Items, bool Separated, bool Batched = false) : BenchCase(Key, Label);

    private sealed class GatedItem(StripedCountdown countdown, int stripe, ManualResetEventSlim gate) : BenchWorkItem
    {
        public override void Execute()
        {
            if (!gate.IsSet)
            {
                gate.Wait();
            }

            countdown.Signal(stripe);
        }
    }
}
