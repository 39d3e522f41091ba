using System.Diagnostics;
using SlimPool.Bench.Pools;
using SlimPool.Bench.Running;
using SlimPool.Bench.Work;

namespace SlimPool.Bench.Scenarios;

/// <summary>
/// The CPU an idle pool burns: a burst of 10,000 empty items, a 100 ms pause for spinning workers to park, then
/// the process's CPU time over an idle period while the main thread sleeps (the whole process: runtime
/// background threads count too).
/// </summary>
internal sealed class IdleCpuScenario : IScenario
{
    public string Name => "idle-cpu";

    public string Description => "process CPU time an idle pool consumes after a burst (percent of one core)";

    public IReadOnlyList<BenchCase> Cases(CaseContext context)
    {
        int milliseconds = context.Size(quick: 200, standard: 500, full: 5000);
        return [new Case("after-burst", $"idle for {milliseconds} ms after a burst of 10,000 items", milliseconds)
        {
            RatioFloor = 0.05,
            Note = "values under 0.05% of a core (about the measure's resolution) count as 0.05% for the ratio",
        }];
    }

    public Measurement Measure<TPool>(BenchCase benchCase, TPool pool)
        where TPool : struct, IBenchPool
    {
        var c = (Case)benchCase;
        var countdown = new StripedCountdown(10_000);
        CountdownItem[] items = CountdownItem.ForEachStripe(countdown);

        for (int i = 0; i < 10_000; i++)
        {
            pool.Queue(items[i % items.Length]);
        }

        countdown.Wait("idle-cpu burst");
        Thread.Sleep(100);
        using Process process = Process.GetCurrentProcess();
        TimeSpan before = process.TotalProcessorTime;
        long start = Stopwatch.GetTimestamp();
        Thread.Sleep(c.Milliseconds);
        process.Refresh();
        double percent = 100 * (process.TotalProcessorTime - before).TotalSeconds / Stopwatch.GetElapsedTime(start).TotalSeconds;
        return new Measurement([new("cpu", "% of a core", percent, "0.00")]);
    }

    private sealed record Case(string Key, string Label, int Milliseconds) : BenchCase(Key, Label);
}
