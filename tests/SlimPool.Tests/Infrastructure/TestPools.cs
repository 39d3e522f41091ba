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

    /// <summary>Each of <see cref="QueueAndIdleWaits"/> with each of <paramref name="values"/> (a shutdown mode, a switch).</summary>
    public static TheoryData<WorkQueueKind, IdleWaitKind, T> QueueAndIdleWaitsWith<T>(params T[] values)
    {
        var cases = new TheoryData<WorkQueueKind, IdleWaitKind, T>();
        foreach (var row in QueueAndIdleWaits())
        {
            foreach (T value in values)
            {
                cases.Add((WorkQueueKind)row[0], (IdleWaitKind)row[1], value);
            }
        }

        return cases;
    }

    /// <summary>Each of <see cref="QueueAndIdleWaits"/> with an abandon and with a drain.</summary>
    public static TheoryData<WorkQueueKind, IdleWaitKind, ShutdownMode> QueueAndIdleWaitsByShutdownMode() =>
        QueueAndIdleWaitsWith(ShutdownMode.Abandon, ShutdownMode.Drain);

    /// <summary>A pool on <paramref name="queue"/> and <paramref name="idleWait"/>, then <paramref name="configure"/>.</summary>
    public static SlimThreadPool Create(WorkQueueKind queue, IdleWaitKind idleWait, int workers = 2, Action<SlimThreadPoolOptions>? configure = null, [System.Runtime.CompilerServices.CallerMemberName] string name = "") =>
        Create(workers, options =>
        {
            options.Queue = queue;
            options.IdleWait = idleWait;
            configure?.Invoke(options);
        }, name);

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
