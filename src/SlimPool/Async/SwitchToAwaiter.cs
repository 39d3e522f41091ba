using System.Runtime.CompilerServices;
using SlimPool.Async;

namespace SlimPool;

/// <summary>The awaiter of <see cref="SwitchToAwaitable"/>: queues the continuation to the pool or the group.</summary>
public readonly struct SwitchToAwaiter : ICriticalNotifyCompletion
{
    private static readonly Action<object?> s_runContinuation = static state => ((Action)state!)();
    private static readonly ContextCallback s_runInContext = static state => ((Action)state!)();

    private readonly ISchedulingTarget _target;
    private readonly bool _alwaysYield;

    internal SwitchToAwaiter(ISchedulingTarget target, bool alwaysYield)
    {
        _target = target;
        _alwaysYield = alwaysYield;
    }

    /// <summary>
    /// Inside the target's item (on one of the pool's workers; inside one of the group's items): true unless asked to
    /// yield. Outside it: true once the target no longer accepts work, so that <see cref="GetResult"/> throws.
    /// </summary>
    /// <remarks>
    /// A yield asked for inside the item is queued even once the target shut down: a drain takes it as the target's
    /// work; an abandon refuses it, and the rest of the method runs after the item, off the pool, where the await
    /// throws. Completing it at once instead would run the rest of the method inline, as more of an item the shutdown
    /// counted as running, after the shutdown returned.
    /// </remarks>
    public bool IsCompleted => _target.IsRunningItemsOnCurrentThread ? !_alwaysYield : _target.IsShutDown;

    /// <summary>Ends the await.</summary>
    /// <exception cref="ObjectDisposedException">The pool or group shut down before the switch.</exception>
    public void GetResult()
    {
        if (_target.IsShutDown && !_target.IsRunningItemsOnCurrentThread)
        {
            throw _target.NewDisposedException();
        }
    }

    /// <summary>Queues <paramref name="continuation"/> to the pool or group, flowing the current ExecutionContext.</summary>
    /// <param name="continuation">The rest of the async method.</param>
    public void OnCompleted(Action continuation)
    {
        ArgumentNullException.ThrowIfNull(continuation);
        ExecutionContext? context = ExecutionContext.Capture();
        UnsafeOnCompleted(context is null ? continuation : () => ExecutionContext.Run(context, s_runInContext, continuation));
    }

    /// <summary>Queues <paramref name="continuation"/> to the pool or group (the async method builder flows the context itself).</summary>
    /// <param name="continuation">The rest of the async method.</param>
    public void UnsafeOnCompleted(Action continuation)
    {
        ArgumentNullException.ThrowIfNull(continuation);
        if (!_target.TryEnqueue(continuation, null))
        {
            // Disposed between IsCompleted and here: never drop the continuation; GetResult then throws.
            _target.RunRefused(s_runContinuation, continuation);
        }
    }
}
