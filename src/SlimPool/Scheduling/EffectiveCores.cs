namespace SlimPool.Scheduling;

/// <summary>
/// The cores the process can use: <see cref="Environment.ProcessorCount"/>, at most the cgroup's CPU quota rounded up
/// (<see cref="CpuQuota"/>), never below 1. The runtime reads the quota once, at start, and
/// <c>DOTNET_PROCESSOR_COUNT</c> overrides it; a container's quota may also change while the process runs. So this
/// re-reads it, at most once per <see cref="RereadInterval"/> and only when asked, as Go's runtime does since 1.25.
/// The same reading gives the quota's enforcement period (<see cref="QuotaPeriod"/>).
/// </summary>
/// <remarks>Owned by one thread (the starvation guard's): no field is shared, nothing needs a fence.</remarks>
internal sealed class EffectiveCores
{
    /// <summary>How long a reading of the quota is used before the next.</summary>
    public static readonly TimeSpan RereadInterval = TimeSpan.FromSeconds(1);

    private readonly Func<CpuLimit?> _readLimit;
    private readonly int _processorCount;
    private long _nextReadMs = long.MinValue;
    private int _cores;
    private TimeSpan _quotaPeriod;

    /// <param name="readLimit">Reads the cgroup's limit, null for none (<see cref="CpuQuota.ReadLimit"/>; tests pass their own).</param>
    /// <param name="processorCount">The processor count to cap (<see cref="Environment.ProcessorCount"/>).</param>
    public EffectiveCores(Func<CpuLimit?>? readLimit = null, int? processorCount = null)
    {
        _readLimit = readLimit ?? (static () => CpuQuota.ReadLimit());
        _processorCount = processorCount ?? Environment.ProcessorCount;
        _cores = _processorCount;
    }

    /// <summary>The cores now: min(processor count, ⌈quota⌉), at least 1; re-reads the quota if the last reading is old.</summary>
    /// <param name="nowMs">The caller's <see cref="Environment.TickCount64"/>.</param>
    public int Get(long nowMs)
    {
        Refresh(nowMs);
        return _cores;
    }

    /// <summary>
    /// The quota's enforcement period now (<see cref="CpuLimit.Period"/>), <see cref="TimeSpan.Zero"/> without a quota;
    /// re-reads the quota if the last reading is old.
    /// </summary>
    /// <param name="nowMs">The caller's <see cref="Environment.TickCount64"/>.</param>
    public TimeSpan QuotaPeriod(long nowMs)
    {
        Refresh(nowMs);
        return _quotaPeriod;
    }

    private void Refresh(long nowMs)
    {
        if (nowMs < _nextReadMs)
        {
            return;
        }

        _nextReadMs = nowMs + (long)RereadInterval.TotalMilliseconds;
        CpuLimit? limit = _readLimit();
        _cores = limit is CpuLimit { Cpus: var cpus } && cpus < _processorCount
            ? Math.Max(1, (int)Math.Ceiling(cpus))
            : _processorCount;
        _quotaPeriod = limit?.Period ?? TimeSpan.Zero;
    }
}
