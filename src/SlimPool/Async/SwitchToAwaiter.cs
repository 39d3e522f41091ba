using System.Runtime.CompilerServices;

namespace SlimPool;

/// <summary>The awaiter of <see cref="SwitchToAwaitable"/>: queues the continuation to the pool.</summary>
public readonly struct SwitchToAwaiter : ICriticalNotifyCompletion
{
    private static readonly Action<object?> s_runContinuation = static state => ((Action)state!)();
    private static readonly ContextCallback s_runInContext = static state => ((Action)state!)();

    private readonly SlimThreadPool _pool;
    private readonly bool _alwaysYield;

    internal SwitchToAwaiter(SlimThreadPool pool, bool alwaysYield)
    {
        _pool = pool;
        _alwaysYield = alwaysYield;
    }

    /// <summary>True when already on one of the pool's workers (and not asked to yield), or when the pool is disposed.</summary>
    public bool IsCompleted => _pool.IsShutDown || (!_alwaysYield && _pool.IsOwnWorker);

    /// <summary>Ends the await.</summary>
    /// <exception cref="ObjectDisposedException">The pool was disposed before the switch.</exception>
    public void GetResult()
    {
        if (_pool.IsShutDown && !_pool.IsOwnWorker)
        {
            throw new ObjectDisposedException(nameof(SlimThreadPool), "The pool has been disposed; cannot switch to it.");
        }
    }

    /// <summary>Queues <paramref name="continuation"/> to the pool, flowing the current ExecutionContext.</summary>
    /// <param name="continuation">The rest of the async method.</param>
    public void OnCompleted(Action continuation)
    {
        ArgumentNullException.ThrowIfNull(continuation);
        ExecutionContext? context = ExecutionContext.Capture();
        UnsafeOnCompleted(context is null ? continuation : () => ExecutionContext.Run(context, s_runInContext, continuation));
    }

    /// <summary>Queues <paramref name="continuation"/> to the pool (the async method builder flows the context itself).</summary>
    /// <param name="continuation">The rest of the async method.</param>
    public void UnsafeOnCompleted(Action continuation)
    {
        ArgumentNullException.ThrowIfNull(continuation);
        if (!_pool.TryEnqueue(continuation, null))
        {
            // Disposed between IsCompleted and here: never drop the continuation; GetResult then throws.
            ThreadPool.UnsafeQueueUserWorkItem(s_runContinuation, continuation, preferLocal: false);
        }
    }
}
