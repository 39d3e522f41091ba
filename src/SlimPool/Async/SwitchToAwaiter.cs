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
    /// True when already running as the target's item (on one of the pool's workers; inside one of the group's items) and
    /// not asked to yield, or when the target no longer accepts work.
    /// </summary>
    public bool IsCompleted => _target.IsShutDown || (!_alwaysYield && _target.IsRunningItemsOnCurrentThread);

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
