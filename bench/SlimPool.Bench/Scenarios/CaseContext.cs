namespace SlimPool.Bench.Scenarios;

/// <summary>What decides a scenario's cases: the run's size, the calibrated work loop, and the user's lists.</summary>
/// <param name="Mode">quick, default or full sizes.</param>
/// <param name="NanosecondsPerIteration">The parent's calibration of <see cref="Work.CpuWork"/>, shared with every child.</param>
/// <param name="Cores">
/// The parent's core count, which sizes the cases: a child started with <c>--cpus</c> sees fewer, yet must run the
/// same case, or the scaling curve would compare different amounts of work.
/// </param>
/// <param name="WorkSizes">tiny-work's work per item in µs, or null for the defaults.</param>
/// <param name="Workers">thread-count's worker counts, or null for the defaults.</param>
internal sealed record CaseContext(BenchMode Mode, double NanosecondsPerIteration, int Cores, IReadOnlyList<double>? WorkSizes = null, IReadOnlyList<int>? Workers = null)
{
    /// <summary>Picks a size for the mode.</summary>
    public int Size(int quick, int standard, int full) => Mode switch
    {
        BenchMode.Quick => quick,
        BenchMode.Full => full,
        _ => standard,
    };

    /// <summary>The iterations of the work loop that take about <paramref name="nanoseconds"/>.</summary>
    public long Iterations(double nanoseconds) => Work.CpuWork.IterationsFor(nanoseconds, NanosecondsPerIteration);
}
