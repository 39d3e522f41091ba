using System.Diagnostics;
using SlimPool.Bench.Pools;

namespace SlimPool.Bench.Scenarios;

/// <summary>What a scenario needs: the settings, the pools chosen, and a way to report progress.</summary>
internal sealed class ScenarioContext(BenchSettings settings, IReadOnlyList<PoolDefinition> pools, Action<string> progress)
{
    public BenchSettings Settings { get; } = settings;

    public IReadOnlyList<PoolDefinition> Pools { get; } = pools;

    public void Report(string message) => progress(message);

    /// <summary>Picks a size for the run mode: <c>--quick</c>, default, or <c>--full</c> (the seeds' sizes).</summary>
    public int Size(int quick, int standard, int full) => Settings.Quick ? quick : Settings.Full ? full : standard;

    /// <summary>
    /// Creates <paramref name="definition"/>'s pool (with <c>--workers</c> when one count is given), runs
    /// <paramref name="once"/> on it as <see cref="Repeat{T}(Func{T})"/> does, and disposes it.
    /// </summary>
    public List<T> RepeatOn<T>(PoolDefinition definition, string label, Func<IThreadPool, T> once)
    {
        Report($"{label}: {definition.Name}");
        using IThreadPool pool = definition.Create(Settings.SingleWorkerCount);
        return Repeat(() => once(pool));
    }

    /// <summary>Runs <paramref name="once"/> once to warm up, then <c>--repeat</c> times with a full GC before each.</summary>
    public List<T> Repeat<T>(Func<T> once)
    {
        once();
        var samples = new List<T>(Settings.Repeat);
        for (int i = 0; i < Settings.Repeat; i++)
        {
            FullCollect();
            samples.Add(once());
        }

        return samples;
    }

    public static void FullCollect()
    {
        GC.Collect();
        GC.WaitForPendingFinalizers();
        GC.Collect();
    }

    /// <summary>Waits for a run to finish; a benchmark that hangs fails with a message instead of hanging.</summary>
    public static void Await(ManualResetEventSlim done, string what, Func<string> state)
    {
        if (!done.Wait(TimeSpan.FromMinutes(5)))
        {
            throw new TimeoutException($"{what} did not finish within 5 minutes: {state()}");
        }
    }

    public static double Milliseconds(long startTimestamp) => Stopwatch.GetElapsedTime(startTimestamp).TotalMilliseconds;
}
