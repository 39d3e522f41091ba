using System.Runtime;

namespace SlimPool.Bench.Running;

/// <summary>
/// What one measured repetition of one case on one pool produced: named values, the first one primary (lower is
/// better; the ratio and the verdict are computed on it). Travels from a child process to the parent as JSON.
/// </summary>
internal sealed record Measurement(IReadOnlyList<MeasuredValue> Values)
{
    [System.Text.Json.Serialization.JsonIgnore]
    public MeasuredValue Primary => Values[0];

    /// <summary>The built-in pool's threads and completions around the measured run; null where a scenario does not record them.</summary>
    public BuiltInPoolState? BuiltInPool { get; init; }

    // A warm-up run that compiled (or queued for tier-1 compilation) fewer methods than this counts as warm: the
    // runtime's own housekeeping compiles a handful in any run, on either pool.
    private const int QuietRunMethods = 16;

    private const int MaxWarmUps = 4;

    /// <summary>
    /// Warms up (JIT, tiering, the pool's threads and queues) by running <paramref name="once"/> until a run leaves the
    /// JIT nearly idle, at most <see cref="MaxWarmUps"/> times; then waits 50 ms, collects garbage, and returns the
    /// next run, the measured one.
    /// </summary>
    /// <remarks>
    /// Tiered compilation recompiles a method at tier 1 after 30 calls, on a background thread that on two cores
    /// takes a core from the run. The built-in pool's code is precompiled (ReadyToRun) and SlimPool's is not, so
    /// after one warm-up the measured run compiled about 9 methods on the built-in pool and 36 on SlimPool (tiny-work,
    /// 1 ms items: the idle and wake paths are called only a few times a run): SlimPool paid for its own JIT, about
    /// 5% of that cell. Each warm-up counts what its run compiled once the background compilations it started have
    /// finished (<see cref="JitQuiescence"/>).
    /// </remarks>
    public static Measurement WarmUpThenMeasure(Func<Measurement> once)
    {
        for (int warmUp = 1; warmUp <= MaxWarmUps; warmUp++)
        {
            long before = JitInfo.GetCompiledMethodCount();
            once();
            JitQuiescence.Wait();
            if (JitInfo.GetCompiledMethodCount() - before < QuietRunMethods)
            {
                break;
            }
        }

        Thread.Sleep(50);
        GC.Collect();
        GC.WaitForPendingFinalizers();
        GC.Collect();
        BuiltInPoolState state = BuiltInPoolState.Before();
        Measurement measured = once();
        return measured with { BuiltInPool = state.After() };
    }
}
