using System.Diagnostics;
using System.Globalization;
using SlimPool.Bench.Pools;
using SlimPool.Bench.Running;
using SlimPool.Bench.Work;

namespace SlimPool.Bench.Scenarios;

/// <summary>
/// Seed 000's experiment with calibrated work: items of a fixed amount of CPU work (0.1 µs to 1 ms) queued from
/// outside the pool by ProcessorCount/2 producer threads (at least one), at most 10,000 outstanding (and, at
/// <c>--full</c>, uncapped too). Besides wall time it reports the overhead per item: wall time × cores ÷ items,
/// less the work itself.
/// </summary>
internal sealed class TinyWorkScenario : IScenario
{
    public const int OutstandingCap = 10_000;

    private const int CapCheckInterval = 64;

    public static double[] DefaultWorkSizes { get; } = [0.1, 1, 10, 100, 1000];

    public static double[] QuickWorkSizes { get; } = [1, 100];

    public string Name => "tiny-work";

    public string Description => "seed 000: items of 0.1 µs to 1 ms of calibrated CPU work queued from outside the pool, at most 10,000 outstanding";

    public IReadOnlyList<BenchCase> Cases(CaseContext context)
    {
        IReadOnlyList<double> sizes = context.WorkSizes ?? (context.Mode == BenchMode.Quick ? QuickWorkSizes : DefaultWorkSizes);
        bool[] caps = context.Mode == BenchMode.Full ? [true, false] : [true];
        var cases = new List<BenchCase>();
        foreach (bool capped in caps)
        {
            foreach (double microseconds in sizes)
            {
                long iterations = context.Iterations(microseconds * 1000);
                double workNs = iterations * context.NanosecondsPerIteration;
                int items = ItemsFor(context, workNs);
                string key = string.Create(CultureInfo.InvariantCulture, $"{(capped ? "cap" : "nocap")}-{microseconds}us");
                string label = string.Create(CultureInfo.InvariantCulture, $"{microseconds:0.###} µs of work per item ({iterations:N0} iterations, {workNs:0} ns), {items:N0} items, {(capped ? $"at most {OutstandingCap:N0} outstanding" : "no cap")}");
                cases.Add(new Case(key, label, iterations, workNs, items, capped)
                {
                    Variant = capped ? "capped" : "uncapped",
                    Parameter = microseconds,
                    Extended = context.WorkSizes is null && microseconds > 1,
                });
            }
        }

        return cases;
    }

    public Measurement Measure<TPool>(BenchCase benchCase, TPool pool)
        where TPool : struct, IBenchPool
    {
        var c = (Case)benchCase;
        return Measurement.WarmUpThenMeasure(() =>
        {
            double ms = RunOnce(pool, c);
            double overheadNs = (ms * 1e6 * Environment.ProcessorCount / c.Items) - c.WorkNanoseconds;
            return new Measurement(
            [
                new("wall", "ms", ms),
                new("throughput", "items/s", c.Items / (ms / 1e3), "N0"),
                new("overhead", "ns/item", overheadNs, "0"),
            ]);
        });
    }

    private static int ItemsFor(CaseContext context, double workNs)
    {
        // About the same CPU time per cell whatever the work size, within bounds.
        double budgetCoreSeconds = context.Size(quick: 20, standard: 60, full: 2000) / 1000.0;
        return (int)Math.Clamp(budgetCoreSeconds * context.Cores * 1e9 / workNs, context.Mode == BenchMode.Quick ? 200 : 500, 1_000_000);
    }

    private static double RunOnce<TPool>(TPool pool, Case c)
        where TPool : struct, IBenchPool
    {
        var countdown = new StripedCountdown(c.Items);
        var items = new TinyWorkItem[countdown.Stripes];
        for (int s = 0; s < items.Length; s++)
        {
            items[s] = new TinyWorkItem(countdown, s, c.Iterations);
        }

        int producers = Math.Max(1, Environment.ProcessorCount / 2);
        var threads = new Thread[producers];
        using var go = new ManualResetEventSlim(false);
        for (int p = 0; p < producers; p++)
        {
            int first = p;
            threads[p] = new Thread(() => Produce(pool, items, countdown, first, producers, c, go)) { IsBackground = true, Name = $"producer {p}" };
            threads[p].Start();
        }

        long start = Stopwatch.GetTimestamp();
        go.Set();
        countdown.Wait("tiny-work");
        double ms = Stopwatch.GetElapsedTime(start).TotalMilliseconds;
        foreach (Thread thread in threads)
        {
            thread.Join();
        }

        return ms;
    }

    // Producer p queues items p, p + producers, p + 2 × producers, ...: item i belongs to stripe i mod stripes.
    private static void Produce<TPool>(TPool pool, TinyWorkItem[] items, StripedCountdown countdown, int first, int producers, Case c, ManualResetEventSlim go)
        where TPool : struct, IBenchPool
    {
        go.Wait();
        long queued = 0;
        for (long i = first; i < c.Items; i += producers)
        {
            if (c.Capped && (queued % CapCheckInterval) == 0)
            {
                // Outstanding across all producers is about queued × producers − completed.
                var spinner = default(SpinWait);
                while ((queued * producers) - countdown.Completed >= OutstandingCap)
                {
                    spinner.SpinOnce();
                }
            }

            pool.Queue(items[i % items.Length]);
            queued++;
        }
    }

    private sealed record Case(string Key, string Label, long Iterations, double WorkNanoseconds, int Items, bool Capped) : BenchCase(Key, Label);

    private sealed class TinyWorkItem(StripedCountdown countdown, int stripe, long iterations) : BenchWorkItem
    {
        public override void Execute()
        {
            CpuWork.Run(iterations);
            countdown.Signal(stripe);
        }
    }
}
