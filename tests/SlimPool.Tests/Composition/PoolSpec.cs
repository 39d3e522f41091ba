namespace SlimPool.Tests.Composition;

/// <summary>
/// A generated pool configuration: queue × idle wait × workers × bound × context flow × the flight recorder (the
/// slow-item watch at its shortest threshold and a listener on the run-time histogram) × thread hooks (a start hook that
/// sets an <c>AsyncLocal</c>, an exit hook that blocks in a scope: <see cref="ThreadHookRecords"/>) × spares that retire
/// after <see cref="ShortSpareIdleTimeout"/> instead of the default 5 s (so a program sees them come and go) × a starvation
/// guard that looks every <see cref="ShortStarvationTimeout"/> instead of the default 50 ms × workers without their
/// <c>SynchronizationContext</c> (an await in a task then resumes through the pool's or group's <c>TaskScheduler</c>).
/// </summary>
internal sealed record PoolSpec(
    WorkQueueKind Queue,
    IdleWaitKind IdleWait,
    int Workers,
    int? BoundedCapacity,
    bool FlowExecutionContext,
    bool FlightRecorder = false,
    bool ThreadHooks = false,
    bool ShortSpareIdle = false,
    bool ShortStarvation = false,
    bool NoSynchronizationContext = false)
{
    /// <summary>The starvation guard's timeout in a program with <see cref="ShortStarvation"/>: a guard that adds a spare for a blocked worker within the items' own 1 to 5 ms.</summary>
    public static readonly TimeSpan ShortStarvationTimeout = TimeSpan.FromMilliseconds(5);

    /// <summary>How long a spare waits for work before it retires, in a program with <see cref="ShortSpareIdle"/>.</summary>
    public static readonly TimeSpan ShortSpareIdleTimeout = TimeSpan.FromMilliseconds(5);

    /// <summary>The slow-item threshold of a pool that watches: the shortest allowed, so the generated blocking items (1 to 5 ms) cross it.</summary>
    public static readonly TimeSpan SlowItemThreshold = TimeSpan.FromMilliseconds(1);

    /// <summary>
    /// The options for a pool of this configuration named <paramref name="name"/>, its hooks <paramref name="hooks"/>'s
    /// when <see cref="ThreadHooks"/>.
    /// </summary>
    public SlimThreadPoolOptions ToOptions(string name, Action<Exception> unhandledException, ThreadHookRecords hooks)
    {
        var options = new SlimThreadPoolOptions
        {
            Name = name,
            Queue = Queue,
            IdleWait = IdleWait,
            WorkerCount = Workers,
            BoundedCapacity = BoundedCapacity,
            FlowExecutionContext = FlowExecutionContext,
            UnhandledException = unhandledException,
            SlowItemThreshold = FlightRecorder ? SlowItemThreshold : Timeout.InfiniteTimeSpan,
            OnThreadStart = ThreadHooks ? hooks.OnStart : null,
            OnThreadExit = ThreadHooks ? hooks.OnExit : null,
        };
        if (ShortSpareIdle)
        {
            options.SpareWorkerIdleTimeout = ShortSpareIdleTimeout;
        }

        if (ShortStarvation)
        {
            options.StarvationTimeout = ShortStarvationTimeout;
        }

        if (NoSynchronizationContext)
        {
            options.UseSynchronizationContext = false;
        }

        return options;
    }

    public override string ToString() =>
        $"new SlimThreadPoolOptions {{ Queue = WorkQueueKind.{Queue}, IdleWait = IdleWaitKind.{IdleWait}, WorkerCount = {Workers}, " +
        $"BoundedCapacity = {(BoundedCapacity is int bound ? bound.ToString(System.Globalization.CultureInfo.InvariantCulture) : "null")}, " +
        $"FlowExecutionContext = {(FlowExecutionContext ? "true" : "false")}" +
        (FlightRecorder ? ", SlowItemThreshold = TimeSpan.FromMilliseconds(1)" : string.Empty) +
        (ThreadHooks ? ", OnThreadStart = hooks.OnStart, OnThreadExit = hooks.OnExit /* ThreadHookRecords */" : string.Empty) +
        (ShortSpareIdle ? ", SpareWorkerIdleTimeout = TimeSpan.FromMilliseconds(5)" : string.Empty) +
        (ShortStarvation ? ", StarvationTimeout = TimeSpan.FromMilliseconds(5)" : string.Empty) +
        (NoSynchronizationContext ? ", UseSynchronizationContext = false" : string.Empty) + " }";
}
