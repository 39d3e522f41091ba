using System.Diagnostics;
using SlimPool.Bench.Pools;
using SlimPool.Bench.Reporting;

namespace SlimPool.Bench.Scenarios;

/// <summary>
/// The process CPU time an idle pool burns: run a burst of items, wait for it, then measure
/// <see cref="Process.TotalProcessorTime"/> over an idle period while the main thread sleeps.
/// </summary>
internal sealed class IdleCpuScenario : IScenario
{
    private static readonly Action<object?> s_work = static state => ((Completion)state!).Signal();

    public string Name => "idle-cpu";

    public string Description => "process CPU time an idle pool consumes (percent of one core)";

    public IEnumerable<CaseResult> Run(ScenarioContext context)
    {
        int seconds = context.Size(quick: 1, standard: 5, full: 5);
        string label = $"idle for {seconds} s after a burst";
        var rows = new List<PoolResult>();
        foreach (PoolDefinition definition in context.Pools)
        {
            context.Report($"idle-cpu {label}: {definition.Name}");
            double percent;
            using (IThreadPool pool = definition.Create(context.Settings.SingleWorkerCount))
            {
                var burst = new Completion(10_000);
                for (int i = 0; i < 10_000; i++)
                {
                    pool.Queue(s_work, burst);
                }

                burst.Wait("idle-cpu burst");
                Thread.Sleep(100); // let spinning workers park
                using Process process = Process.GetCurrentProcess();
                TimeSpan before = process.TotalProcessorTime;
                long start = Stopwatch.GetTimestamp();
                Thread.Sleep(TimeSpan.FromSeconds(seconds));
                process.Refresh();
                percent = 100 * (process.TotalProcessorTime - before).TotalSeconds / Stopwatch.GetElapsedTime(start).TotalSeconds;
            }

            rows.Add(new PoolResult(definition.Name, [new Metric("cpu", "% of a core", [percent], "0.00")]));
        }

        yield return new CaseResult(Name, label, rows, "the whole process, so runtime background threads count too");
    }
}
