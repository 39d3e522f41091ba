namespace SlimPool.Tests.Infrastructure;

/// <summary>Pools for the feature tests: the default queue and idle wait, the starvation guard off (tests block workers on purpose).</summary>
internal static class TestPools
{
    public static SlimThreadPool Create(int workers = 2, Action<SlimThreadPoolOptions>? configure = null, [System.Runtime.CompilerServices.CallerMemberName] string name = "")
    {
        var options = new SlimThreadPoolOptions
        {
            WorkerCount = workers,
            StarvationTimeout = Timeout.InfiniteTimeSpan,
            Name = name,
        };
        configure?.Invoke(options);
        return new SlimThreadPool(options);
    }
}
