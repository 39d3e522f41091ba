namespace SlimPool.Scheduling;

/// <summary>
/// The cores the process can use: <see cref="Environment.ProcessorCount"/>, at most the cgroup's CPU quota rounded up
/// (<see cref="CpuQuota"/>), never below 1. The runtime reads the quota once, at start, and
/// <c>DOTNET_PROCESSOR_COUNT</c> overrides it; a container's quota may also change while the process runs. So this
/// re-reads it, at most once per <see cref="RereadInterval"/> and only when asked, as Go's runtime does since 1.25.
/// </summary>
/// <remarks>Owned by one thread (the starvation guard's): no field is shared, nothing needs a fence.</remarks>
internal sealed class EffectiveCores
{
    /// <summary>How long a reading of the quota is used before the next.</summary>
    public static readonly TimeSpan RereadInterval = TimeSpan.FromSeconds(1);

    private readonly Func<double?> _readQuota;
    private readonly int _processorCount;
    private long _nextReadMs = long.MinValue;
    private int _cores;

    /// <param name="readQuota">Reads the quota in CPUs, null for none (<see cref="CpuQuota.Read"/>; tests pass their own).</param>
    /// <param name="processorCount">The processor count to cap (<see cref="Environment.ProcessorCount"/>).</param>
    public EffectiveCores(Func<double?>? readQuota = null, int? processorCount = null)
    {
        _readQuota = readQuota ?? (static () => CpuQuota.Read());
        _processorCount = processorCount ?? Environment.ProcessorCount;
        _cores = _processorCount;
    }

    /// <summary>The cores now: min(processor count, ⌈quota⌉), at least 1; re-reads the quota if the last reading is old.</summary>
    /// <param name="nowMs">The caller's <see cref="Environment.TickCount64"/>.</param>
    public int Get(long nowMs)
    {
        if (nowMs >= _nextReadMs)
        {
            _nextReadMs = nowMs + (long)RereadInterval.TotalMilliseconds;
            double? quota = _readQuota();
            _cores = quota is double cpus && cpus < _processorCount
                ? Math.Max(1, (int)Math.Ceiling(cpus))
                : _processorCount;
        }

        return _cores;
    }
}
