namespace SlimPool.Bench.Pools;

/// <summary>How a case wants every pool sized, so that a cap applies to both sides alike.</summary>
/// <param name="Workers">The worker count (SlimPool, naive pool); null for each pool's default.</param>
/// <param name="MaxThreads">The most threads a pool may run items on (built-in pool's maximum, SlimPool's MaxWorkers); null for no cap.</param>
/// <param name="FixedThreads">Whether the built-in pool's minimum is raised to <paramref name="MaxThreads"/> too (a fixed-size pool).</param>
internal readonly record struct PoolSetup(int? Workers = null, int? MaxThreads = null, bool FixedThreads = false)
{
    public static PoolSetup Default => default;
}
