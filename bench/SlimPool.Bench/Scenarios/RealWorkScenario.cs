using System.Diagnostics;
using System.Security.Cryptography;
using System.Text.Json;
using SlimPool.Bench.Pools;
using SlimPool.Bench.Running;
using SlimPool.Bench.Work;

namespace SlimPool.Bench.Scenarios;

/// <summary>
/// Work a user queues for real: small JSON documents parsed with System.Text.Json (source-generated), SHA-256
/// of 1 KB buffers, and an async fan-out/fan-in of writer and reader flows over System.IO.Pipelines (every flush a
/// continuation on the pool), all queued from one outside thread.
/// </summary>
internal sealed class RealWorkScenario : IScenario
{
    public string Name => "real-work";

    public string Description => "small JSON documents (System.Text.Json), SHA-256 of 1 KB buffers, async pipelines fan-out/fan-in";

    public IReadOnlyList<BenchCase> Cases(CaseContext context)
    {
        int documents = context.Size(quick: 10_000, standard: 30_000, full: 1_000_000);
        int hashes = context.Size(quick: 20_000, standard: 30_000, full: 1_000_000);
        int flows = context.Size(quick: 100, standard: 200, full: 2_000);
        return
        [
            new Case("json", $"{documents:N0} JSON orders of ~250 bytes, deserialized", Kind.Json, documents, 0),
            new Case("sha256", $"{hashes:N0} SHA-256 hashes of 1 KB", Kind.Sha256, hashes, 0) { Extended = true },
            new Case("pipelines", $"{flows:N0} writer/reader flow pairs over System.IO.Pipelines, {PipelineFlow.Messages} messages each", Kind.Pipelines, flows, PipelineFlow.Messages) { Extended = true },
        ];
    }

    public Measurement Measure<TPool>(BenchCase benchCase, TPool pool)
        where TPool : struct, IBenchPool
    {
        var c = (Case)benchCase;
        return Measurement.WarmUpThenMeasure(() =>
        {
            double ms = c.Kind == Kind.Pipelines ? PipelineFlow.Run(pool, c.Count) : RunItems(pool, c);
            long operations = c.Kind == Kind.Pipelines ? (long)c.Count * c.Messages : c.Count;
            return new Measurement([new("wall", "ms", ms), new("per operation", "ns", ms * 1e6 / operations, "0")]);
        });
    }

    private static double RunItems<TPool>(TPool pool, Case c)
        where TPool : struct, IBenchPool
    {
        var countdown = new StripedCountdown(c.Count);
        var items = new BenchWorkItem[countdown.Stripes];
        for (int s = 0; s < items.Length; s++)
        {
            items[s] = c.Kind == Kind.Json ? new JsonItem(countdown, s) : new HashItem(countdown, s);
        }

        long start = Stopwatch.GetTimestamp();
        for (int i = 0; i < c.Count; i++)
        {
            pool.Queue(items[i % items.Length]);
        }

        countdown.Wait("real-work");
        return Stopwatch.GetElapsedTime(start).TotalMilliseconds;
    }

    private enum Kind
    {
        Json,
        Sha256,
        Pipelines,
    }

    private sealed record Case(string Key, string Label, Kind Kind, int Count, int Messages) : BenchCase(Key, Label);

    /// <summary>Parses the next of its stripe's documents; the same object may run on two workers at once, so the cursor is interlocked.</summary>
    private sealed class JsonItem(StripedCountdown countdown, int stripe) : BenchWorkItem
    {
        private readonly byte[][] _documents = OrderDocuments.Create(16, seed: stripe);
        private int _cursor;

        public long Checksum;

        public override void Execute()
        {
            byte[] document = _documents[(Interlocked.Increment(ref _cursor) & int.MaxValue) % _documents.Length];
            Order order = JsonSerializer.Deserialize(document, OrderJsonContext.Default.Order)!;
            Interlocked.Add(ref Checksum, order.Lines.Count);
            countdown.Signal(stripe);
        }
    }

    private sealed class HashItem(StripedCountdown countdown, int stripe) : BenchWorkItem
    {
        private readonly byte[] _buffer = OrderDocuments.Bytes(1024, seed: stripe);

        public override void Execute()
        {
            Span<byte> hash = stackalloc byte[SHA256.HashSizeInBytes];
            SHA256.HashData(_buffer, hash);
            if (hash[0] == 0 && hash[1] == 0 && hash[2] == 0 && hash[3] == 0)
            {
                Debug.WriteLine("improbable hash"); // keeps the result live
            }

            countdown.Signal(stripe);
        }
    }
}
