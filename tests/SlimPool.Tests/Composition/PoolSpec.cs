namespace SlimPool.Tests.Composition;

/// <summary>A generated pool configuration: queue × idle wait × workers × bound × context flow.</summary>
internal sealed record PoolSpec(WorkQueueKind Queue, IdleWaitKind IdleWait, int Workers, int? BoundedCapacity, bool FlowExecutionContext)
{
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
    };

    public override string ToString() =>
        $"new SlimThreadPoolOptions {{ Queue = WorkQueueKind.{Queue}, IdleWait = IdleWaitKind.{IdleWait}, WorkerCount = {Workers}, " +
        $"BoundedCapacity = {(BoundedCapacity is int bound ? bound.ToString(System.Globalization.CultureInfo.InvariantCulture) : "null")}, " +
        $"FlowExecutionContext = {(FlowExecutionContext ? "true" : "false")} }}";
}
