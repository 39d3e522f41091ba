namespace SlimPool.Scheduling;

/// <summary>
/// The cores the process can use: <see cref="Environment.ProcessorCount"/>, at most the cgroup's CPU quota rounded up
/// (<see cref="CpuQuota"/>), never below 1. The runtime reads the quota once, at start, and
/// <c>DOTNET_PROCESSOR_COUNT</c> overrides it; a container's quota may also change while the process runs. So this
/// re-reads it, at most once per <see cref="RereadInterval"/> and only when asked, as Go's runtime does since 1.25.
/// The same reading gives the quota's enforcement period (<see cref="QuotaPeriod"/>), where the quota can hold the
/// process back: below the CPUs its threads may run on.
/// </summary>
/// <remarks>Owned by one thread (the starvation guard's): no field is shared, nothing needs a fence.</remarks>
internal sealed class EffectiveCores
{
    /// <summary>How long a reading of the quota is used before the next.</summary>
    public static readonly TimeSpan RereadInterval = TimeSpan.FromSeconds(1);

    private readonly Func<CpuLimit?> _readLimit;
    private readonly int _processorCount;
    private readonly int _availableCpus;
    private long _nextReadMs = long.MinValue;
    private int _cores;
    private TimeSpan _quotaPeriod;

    /// <param name="readLimit">Reads the cgroup's limit, null for none (<see cref="CpuQuota.ReadLimit"/>; tests pass their own).</param>
    /// <param name="processorCount">The processor count to cap (<see cref="Environment.ProcessorCount"/>).</param>
    /// <param name="availableCpus">The CPUs the process's threads may run on, whatever the quota (its affinity; the
    /// runtime's processor count already rounds the quota up, so it cannot tell a quota that throttles).</param>
    public EffectiveCores(Func<CpuLimit?>? readLimit = null, int? processorCount = null, int? availableCpus = null)
    {
        _processorCount = processorCount ?? Environment.ProcessorCount;
        int available = _availableCpus = availableCpus ?? AvailableCpus();
        _readLimit = readLimit ?? (() => CpuQuota.ReadLimit(throttlingBelow: available));
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
    /// The quota's enforcement period now (<see cref="CpuLimit.Period"/>) where the quota is below the CPUs the process
    /// may run on, so that a period's share can run out; else <see cref="TimeSpan.Zero"/> (no quota, or one that never
    /// throttles). Re-reads the quota if the last reading is old.
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
        _quotaPeriod = limit is CpuLimit { Cpus: var quota, Period: var period } && quota < _availableCpus ? period : TimeSpan.Zero;
    }

    // The CPUs in the process's affinity mask (at most 64 are seen), or the processor count where it cannot be read.
    private static int AvailableCpus()
    {
        if (!OperatingSystem.IsLinux())
        {
            return Environment.ProcessorCount; // cgroup quotas are Linux's
        }

        try
        {
            using var process = System.Diagnostics.Process.GetCurrentProcess();
            int count = System.Numerics.BitOperations.PopCount((ulong)process.ProcessorAffinity);
            return count > 0 ? count : Environment.ProcessorCount;
        }
        catch (Exception exception) when (exception is PlatformNotSupportedException or InvalidOperationException or System.ComponentModel.Win32Exception)
        {
            return Environment.ProcessorCount;
        }
    }
}
