namespace SlimPool.Tests.Infrastructure;

/// <summary>Pools for the feature tests: the default queue and idle wait, the starvation guard off (tests block workers on purpose).</summary>
internal static class TestPools
{
    /// <summary>Four queue × idle-wait configurations that cover each queue and each idle wait, for feature theories.</summary>
    public static TheoryData<WorkQueueKind, IdleWaitKind> QueueAndIdleWaits() => new()
    {
        { WorkQueueKind.Locked, IdleWaitKind.AutoResetEvent },
        { WorkQueueKind.LockFree, IdleWaitKind.SpinThenPark },
        { WorkQueueKind.WorkStealing, IdleWaitKind.SpinThenPark },
        { WorkQueueKind.WorkStealing, IdleWaitKind.AutoResetEvent },
    };

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
