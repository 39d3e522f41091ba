using System.Diagnostics;
using System.Globalization;
using SlimPool.Bench.Pools;
using SlimPool.Bench.Reporting;

namespace SlimPool.Bench.Scenarios;

/// <summary>
/// Seed 000's experiment: many items queued from outside the pool, each spinning for N ticks (1 tick = 100 ns),
/// by ProcessorCount/2 producer threads (at least one), with at most 10,000 items outstanding or no cap.
/// </summary>
internal sealed class TinyWorkScenario : IScenario
{
    public const int OutstandingCap = 10_000;

    private static readonly Action<object?> s_work = static state => ((TinyWorkRun)state!).Execute();

    public static int[] DefaultTicks { get; } = [0, 1, 10, 100, 1000, 10000];

    public static int[] QuickTicks { get; } = [0, 10, 100, 1000];

    public string Name => "tiny-work";

    public string Description => "seed 000: items spinning 0–10,000 ticks (100 ns) queued from outside the pool, capped and uncapped";

    public IEnumerable<CaseResult> Run(ScenarioContext context)
    {
        IReadOnlyList<int> ticksList = context.Settings.Ticks ?? (context.Settings.Quick ? QuickTicks : DefaultTicks);
        bool[] caps = context.Settings.Quick ? [true] : [true, false];
        int producers = Math.Max(1, Environment.ProcessorCount / 2);

        foreach (bool capped in caps)
        {
            foreach (int ticks in ticksList)
            {
                int items = ItemsFor(context, ticks);
                string label = string.Create(CultureInfo.InvariantCulture, $"{(capped ? $"cap {OutstandingCap:N0}" : "no cap")}, {ticks} ticks ({ticks * 0.1:0.#} µs), {items:N0} items");
                double workSeconds = ticks * FakeProcessorWork.NanosecondsPerTick / 1e9;
                var rows = new List<PoolResult>();
                foreach (PoolDefinition definition in context.Pools)
                {
                    List<double> wall = context.RepeatOn(definition, $"tiny-work {label}", pool => RunOnce(pool, ticks, items, producers, capped));

                    var metrics = new List<Metric>
                    {
                        new("wall", "ms", wall),
                        new("throughput", "items/s", [.. wall.Select(ms => items / (ms / 1e3))], "N0"),
                    };
                    if (ticks > 0)
                    {
                        // Parallel efficiency: (items × work ÷ cores) ÷ wall time.
                        metrics.Add(new("efficiency", "%", [.. wall.Select(ms => 100 * items * workSeconds / Environment.ProcessorCount / (ms / 1e3))]));
                    }

                    rows.Add(new PoolResult(definition.Name, metrics));
                }

                yield return new CaseResult(Name, label, rows) { Variant = capped ? "capped" : "uncapped", Parameter = ticks };
            }
        }
    }

    private static int ItemsFor(ScenarioContext context, int ticks)
    {
        // About the same CPU time per cell whatever the work size, within bounds.
        if (ticks == 0)
        {
            return context.Size(quick: 200_000, standard: 1_000_000, full: 4_000_000);
        }

        double budgetCoreSeconds = context.Settings.Quick ? 0.04 : context.Settings.Full ? 2.0 : 0.25;
        double perItem = ticks * FakeProcessorWork.NanosecondsPerTick / 1e9;
        return (int)Math.Clamp(budgetCoreSeconds * Environment.ProcessorCount / perItem, context.Settings.Quick ? 200 : 500, 1_000_000);
    }

    private static double RunOnce(IThreadPool pool, int ticks, int items, int producers, bool capped)
    {
        var run = new TinyWorkRun(ticks, items);
        var threads = new Thread[producers];
        long start = Stopwatch.GetTimestamp();
        for (int p = 0; p < producers; p++)
        {
            int share = items / producers + (p < items % producers ? 1 : 0);
            threads[p] = new Thread(() => Produce(pool, run, share, producers, capped)) { IsBackground = true, Name = $"producer {p}" };
            threads[p].Start();
        }

        run.Wait("tiny-work");
        double milliseconds = ScenarioContext.Milliseconds(start);
        foreach (Thread thread in threads)
        {
            thread.Join();
        }

        return milliseconds;
    }

    private static void Produce(IThreadPool pool, TinyWorkRun run, int share, int producers, bool capped)
    {
        long queued = 0;
        for (int i = 0; i < share; i++)
        {
            if (capped)
            {
                // Outstanding across all producers is about queued × producers − completed.
                var spinner = default(SpinWait);
                while (queued * producers - run.Completed >= OutstandingCap)
                {
                    spinner.SpinOnce();
                }
            }

            pool.Queue(s_work, run);
            queued++;
        }
    }

    private sealed class TinyWorkRun(int ticks, long items) : Completion(items)
    {
        public void Execute()
        {
            FakeProcessorWork.Spin(ticks);
            Signal();
        }
    }
}
