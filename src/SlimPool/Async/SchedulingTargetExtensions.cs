namespace SlimPool.Async;

/// <summary>How adapters (SlimPool.Reactive, SlimPool.ProtoActor) queue work that nobody waits on.</summary>
internal static class SchedulingTargetExtensions
{
    /// <summary>
    /// Queues as the target's own continuations are (past a bound, never delayed), but refuses from the moment the target
    /// begins to shut down rather than only after a drain's last look: work that re-queues itself from inside the target
    /// (a timer always due, actors messaging each other) would otherwise keep a drain busy for ever. A shutdown that
    /// begins between the test and the enqueue lets one more item in, which the drain runs or the abandon hands back.
    /// </summary>
    public static bool TryEnqueueWhileOpen(this ISchedulingTarget target, object callback, object? state) =>
        !target.IsShutDown && target.TryEnqueue(callback, state);

    /// <summary><see cref="TryEnqueueWhileOpen(ISchedulingTarget, object, object?)"/> with the item's context given (see <see cref="ISchedulingTarget.TryEnqueue(object, object?, ExecutionContext?)"/>).</summary>
    public static bool TryEnqueueWhileOpen(this ISchedulingTarget target, object callback, object? state, ExecutionContext? context) =>
        !target.IsShutDown && target.TryEnqueue(callback, state, context);
}
