using System.Diagnostics;
using SlimPool.Bench.Pools;
using SlimPool.Bench.Reporting;

namespace SlimPool.Bench.Scenarios;

/// <summary>
/// An idle pool gets one item about every millisecond; each sample is the time from just before
/// <c>Queue</c> to the item starting. Shows what the idle protocol costs a lone item.
/// </summary>
internal sealed class WakeLatencyScenario : IScenario
{
    public string Name => "wake-latency";

    public string Description => "an idle pool gets one item every ~1 ms; queue-to-start latency p50/p99";

    public IEnumerable<CaseResult> Run(ScenarioContext context)
    {
        int samples = context.Size(quick: 100, standard: 500, full: 2_000);
        string label = $"{samples:N0} items, one every ~1 ms";
        var rows = new List<PoolResult>();
        foreach (PoolDefinition definition in context.Pools)
        {
            context.Report($"wake-latency {label}: {definition.Name}");
            double[] latencies;
            using (IThreadPool pool = definition.Create(context.Settings.SingleWorkerCount))
            {
                Measure(pool, 20); // warm-up
                latencies = Measure(pool, samples);
            }

            Array.Sort(latencies);
            rows.Add(new PoolResult(definition.Name,
            [
                new Metric("p50", "µs", [Percentile(latencies, 0.50)]),
                new Metric("p99", "µs", [Percentile(latencies, 0.99)]),
                new Metric("max", "µs", [latencies[^1]]),
            ]));
        }

        yield return new CaseResult(Name, label, rows, "one value per cell: the percentile over all samples");
    }

    private static double[] Measure(IThreadPool pool, int samples)
    {
        var latencies = new double[samples];
        using var started = new AutoResetEvent(false);
        var probe = new Probe(started);
        for (int i = 0; i < samples; i++)
        {
            Thread.Sleep(1); // let the workers go idle, and park
            probe.QueuedAt = Stopwatch.GetTimestamp();
            pool.Queue(Probe.Run, probe);
            if (!started.WaitOne(TimeSpan.FromSeconds(30)))
            {
                throw new TimeoutException("wake-latency: an item did not start within 30 s");
            }

            latencies[i] = Stopwatch.GetElapsedTime(probe.QueuedAt, probe.StartedAt).TotalMicroseconds;
        }

        return latencies;
    }

    private static double Percentile(double[] sorted, double p) => sorted[Math.Min(sorted.Length - 1, (int)(p * sorted.Length))];

    private sealed class Probe(AutoResetEvent started)
    {
        public static readonly Action<object?> Run = static state =>
        {
            var probe = (Probe)state!;
            probe.StartedAt = Stopwatch.GetTimestamp();
            probe._started.Set();
        };

        private readonly AutoResetEvent _started = started;

        public long QueuedAt { get; set; }

        public long StartedAt { get; set; }
    }
}
