using System.Diagnostics;
using SlimPool.Bench.Pools;
using SlimPool.Bench.Running;
using SlimPool.Bench.Work;

namespace SlimPool.Bench.Scenarios;

/// <summary>
/// An idle pool gets one item about every millisecond; each sample is the time from just before queueing to the
/// item starting. A repetition reports the median and the 99th percentile of its samples.
/// </summary>
internal sealed class WakeLatencyScenario : IScenario
{
    public string Name => "wake-latency";

    public string Description => "an idle pool gets one item every ~1 ms: queue-to-start latency, median and p99";

    public IReadOnlyList<BenchCase> Cases(CaseContext context)
    {
        int samples = context.Size(quick: 60, standard: 100, full: 2_000);
        return [new Case("idle", $"{samples:N0} items, one every ~1 ms, into an idle pool", samples) { RatioFloor = 0.1 }];
    }

    public Measurement Measure<TPool>(BenchCase benchCase, TPool pool)
        where TPool : struct, IBenchPool
    {
        var c = (Case)benchCase;
        using var started = new AutoResetEvent(false);
        var probe = new Probe(started);

        // Warmed up like every other scenario, until a run leaves the JIT quiet: with a fixed 30-item warm-up, the
        // first measured items met the tier-1 promotions of the wake path (each a pause of about 1 ms, three or four
        // per process on SlimPool, whose code is not precompiled), and those alone made its p99 about 1 ms.
        return Measurement.WarmUpThenMeasure(() =>
        {
            double[] latencies = Sample(pool, probe, started, c.Samples);
            Array.Sort(latencies);
            return new Measurement(
            [
                new("p50", "µs", Percentile(latencies, 0.50)),
                new("p99", "µs", Percentile(latencies, 0.99)),
                new("max", "µs", latencies[^1]),
            ]);
        });
    }

    private static double[] Sample<TPool>(TPool pool, Probe probe, AutoResetEvent started, int count)
        where TPool : struct, IBenchPool
    {
        var latencies = new double[count];
        for (int i = 0; i < count; i++)
        {
            Thread.Sleep(1); // let the workers go idle, and park
            probe.QueuedAt = Stopwatch.GetTimestamp();
            pool.Queue(probe);
            if (!started.WaitOne(TimeSpan.FromSeconds(30)))
            {
                throw new TimeoutException("wake-latency: an item did not start within 30 s");
            }

            latencies[i] = Stopwatch.GetElapsedTime(probe.QueuedAt, probe.StartedAt).TotalMicroseconds;
        }

        return latencies;
    }

    private static double Percentile(double[] sorted, double p) => sorted[Math.Min(sorted.Length - 1, (int)(p * sorted.Length))];

    private sealed record Case(string Key, string Label, int Samples) : BenchCase(Key, Label);

    private sealed class Probe(AutoResetEvent started) : BenchWorkItem
    {
        public long QueuedAt { get; set; }

        public long StartedAt { get; private set; }

        public override void Execute()
        {
            StartedAt = Stopwatch.GetTimestamp();
            started.Set();
        }
    }
}
