using System.Diagnostics;
using SlimPool.Bench.Pools;
using SlimPool.Bench.Reporting;

namespace SlimPool.Bench.Scenarios;

/// <summary>
/// Seed 000's experiment: many items queued from outside the pool, each spinning for N ticks (1 tick = 100 ns),
/// by ProcessorCount/2 producer threads (at least one), with at most 10,000 items outstanding or no cap.
/// </summary>
internal sealed class TinyWorkScenario(BenchSettings settings)
{
    public const int OutstandingCap = 10_000;

    private static readonly Action<object?> s_work = static state => ((TinyWorkRun)state!).Execute();

    public static int[] DefaultTicks { get; } = [0, 1, 10, 100, 1000, 10000];

    public static int[] QuickTicks { get; } = [0, 10, 100, 1000];

    public IEnumerable<CellResult> Run(IReadOnlyList<PoolDefinition> pools, IProgress<string> progress)
    {
        IReadOnlyList<int> ticksList = settings.Ticks ?? (settings.Quick ? QuickTicks : DefaultTicks);
        bool[] caps = settings.Quick ? [true] : [true, false];
        int producers = Math.Max(1, Environment.ProcessorCount / 2);

        foreach (bool capped in caps)
        {
            foreach (int ticks in ticksList)
            {
                int items = ItemsFor(ticks);
                foreach (PoolDefinition definition in pools)
                {
                    progress.Report($"tiny-work {(capped ? "capped" : "uncapped")} {ticks} ticks × {items:N0} items: {definition.Name}");
                    var wallSeconds = new List<double>();
                    using (IThreadPool pool = definition.Create(settings.Workers))
                    {
                        RunOnce(pool, ticks, Math.Max(1, items / 10), producers, capped); // warm-up
                        for (int repetition = 0; repetition < settings.Repeat; repetition++)
                        {
                            FullCollect();
                            wallSeconds.Add(RunOnce(pool, ticks, items, producers, capped));
                        }
                    }

                    yield return new CellResult(
                        Scenario: "tiny-work",
                        Variant: capped ? $"cap {OutstandingCap:N0}" : "no cap",
                        Parameter: ticks,
                        Pool: definition.Name,
                        Items: items,
                        WorkSecondsPerItem: ticks * FakeProcessorWork.NanosecondsPerTick / 1e9,
                        WallSeconds: wallSeconds);
                }
            }
        }
    }

    private int ItemsFor(int ticks)
    {
        // About the same CPU time per cell whatever the work size, within bounds.
        double budgetCoreSeconds = settings.Quick ? 0.04 : 0.6;
        if (ticks == 0)
        {
            return settings.Quick ? 200_000 : 1_000_000;
        }

        double perItem = ticks * FakeProcessorWork.NanosecondsPerTick / 1e9;
        return (int)Math.Clamp(budgetCoreSeconds * Environment.ProcessorCount / perItem, settings.Quick ? 200 : 1_000, 1_000_000);
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

        if (!run.Done.Wait(TimeSpan.FromMinutes(5)))
        {
            throw new TimeoutException($"tiny-work did not finish: {run.Completed:N0} of {items:N0} items completed.");
        }

        double seconds = Stopwatch.GetElapsedTime(start).TotalSeconds;
        foreach (Thread thread in threads)
        {
            thread.Join();
        }

        return seconds;
    }

    private static void Produce(IThreadPool pool, TinyWorkRun run, int share, int producers, bool capped)
    {
        int capPerProducer = OutstandingCap / producers;
        long queued = 0;
        for (int i = 0; i < share; i++)
        {
            if (capped)
            {
                // Outstanding across all producers is about queued * producers - completed.
                var spinner = default(SpinWait);
                while (queued * producers - run.Completed >= capPerProducer * producers)
                {
                    spinner.SpinOnce();
                }
            }

            pool.Queue(s_work, run);
            queued++;
        }
    }

    private static void FullCollect()
    {
        GC.Collect();
        GC.WaitForPendingFinalizers();
        GC.Collect();
    }
}
