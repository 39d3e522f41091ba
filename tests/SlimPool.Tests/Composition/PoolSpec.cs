namespace SlimPool.Tests.Composition;

/// <summary>
/// A generated pool configuration: queue × idle wait × workers × bound × context flow × the flight recorder (the
/// slow-item watch at its shortest threshold and a listener on the run-time histogram).
/// </summary>
internal sealed record PoolSpec(WorkQueueKind Queue, IdleWaitKind IdleWait, int Workers, int? BoundedCapacity, bool FlowExecutionContext, bool FlightRecorder = false)
{
    /// <summary>The slow-item threshold of a pool that watches: the shortest allowed, so the generated blocking items (1 to 5 ms) cross it.</summary>
    public static readonly TimeSpan SlowItemThreshold = TimeSpan.FromMilliseconds(1);

    /// <summary>The options for a pool of this configuration named <paramref name="name"/>; the starvation guard keeps its default.</summary>
    public SlimThreadPoolOptions ToOptions(string name, Action<Exception> unhandledException) => new()
    {
        Name = name,
        Queue = Queue,
        IdleWait = IdleWait,
        WorkerCount = Workers,
        BoundedCapacity = BoundedCapacity,
        FlowExecutionContext = FlowExecutionContext,
        UnhandledException = unhandledException,
        SlowItemThreshold = FlightRecorder ? SlowItemThreshold : Timeout.InfiniteTimeSpan,
    };

    public override string ToString() =>
        $"new SlimThreadPoolOptions {{ Queue = WorkQueueKind.{Queue}, IdleWait = IdleWaitKind.{IdleWait}, WorkerCount = {Workers}, " +
        $"BoundedCapacity = {(BoundedCapacity is int bound ? bound.ToString(System.Globalization.CultureInfo.InvariantCulture) : "null")}, " +
        $"FlowExecutionContext = {(FlowExecutionContext ? "true" : "false")}" +
        (FlightRecorder ? ", SlowItemThreshold = TimeSpan.FromMilliseconds(1) }" : " }");
}
