using SlimPool.Queues;

namespace SlimPool;

/// <summary>
/// The <see cref="IThreadPool"/> queueing overloads, written once for this library's three pools:
/// <see cref="SlimThreadPool"/>, <see cref="SlimThreadPoolGroup"/> and <see cref="ManagedThreadPool"/>. Each overload
/// checks its argument and hands the item to one of four cores the pool implements. The class has no state, and its
/// constructor is <c>private protected</c>: it is not for users to derive from (implement <see cref="IThreadPool"/>
/// instead).
/// </summary>
/// <remarks>
/// <para>The cores decide what accepting means: a <see cref="SlimThreadPool"/> with
/// <see cref="SlimThreadPoolOptions.BoundedCapacity"/> set makes <c>Queue</c> wait for room (on one of its own workers it
/// runs the item inline instead) and <c>TryQueue</c> return <see langword="false"/> while it is full; a group queues into
/// its own queue and honours its pool's bound the same way, except that on one of its pool's workers <c>Queue</c> takes
/// the item over the bound (running it inline would take it out of the group); <see cref="ManagedThreadPool"/> hands the
/// item to <see cref="ThreadPool"/>.</para>
/// <para>On <see cref="SlimThreadPool"/> and its groups the built-in pool's shapes allocate nothing per item: an
/// <see cref="IThreadPoolWorkItem"/>, or an <c>Action&lt;TState&gt;</c> with a reference-type state, travels in the queue
/// entry; a value-type state is carried in a small object, which an item queueing its successor from the same worker
/// reuses. <see cref="ManagedThreadPool"/> allocates one object per item for every shape (see there).</para>
/// <para>An overload is small enough to inline where the pool's type is known, and the core it calls is then bound
/// directly (the pools are sealed): queueing through a <see cref="SlimThreadPool"/> reference costs no virtual call.</para>
/// </remarks>
public abstract class ThreadPoolBase
{
    private protected ThreadPoolBase()
    {
    }

    /// <inheritdoc cref="IThreadPool.Queue(Action)"/>
    public void Queue(Action callback)
    {
        ArgumentNullException.ThrowIfNull(callback);
        QueueItem(callback, null, CancellationToken.None);
    }

    /// <inheritdoc cref="IThreadPool.Queue(Action{object}, object)"/>
    public void Queue(Action<object?> callback, object? state)
    {
        ArgumentNullException.ThrowIfNull(callback);
        QueueItem(callback, state, CancellationToken.None);
    }

    /// <inheritdoc cref="IThreadPool.Queue(IWorkItem)"/>
    public void Queue(IWorkItem workItem)
    {
        ArgumentNullException.ThrowIfNull(workItem);
        QueueItem(workItem, null, CancellationToken.None);
    }

    /// <inheritdoc cref="IThreadPool.Queue(Action, CancellationToken)"/>
    public void Queue(Action callback, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(callback);
        QueueItem(callback, null, cancellationToken);
    }

    /// <inheritdoc cref="IThreadPool.Queue(Action{object}, object, CancellationToken)"/>
    public void Queue(Action<object?> callback, object? state, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(callback);
        QueueItem(callback, state, cancellationToken);
    }

    /// <inheritdoc cref="IThreadPool.Queue(IWorkItem, CancellationToken)"/>
    public void Queue(IWorkItem workItem, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(workItem);
        QueueItem(workItem, null, cancellationToken);
    }

    /// <inheritdoc cref="IThreadPool.TryQueue(Action)"/>
    public bool TryQueue(Action callback)
    {
        ArgumentNullException.ThrowIfNull(callback);
        return TryQueueItem(callback, null, CancellationToken.None);
    }

    /// <inheritdoc cref="IThreadPool.TryQueue(Action{object}, object)"/>
    public bool TryQueue(Action<object?> callback, object? state)
    {
        ArgumentNullException.ThrowIfNull(callback);
        return TryQueueItem(callback, state, CancellationToken.None);
    }

    /// <inheritdoc cref="IThreadPool.TryQueue(IWorkItem)"/>
    public bool TryQueue(IWorkItem workItem)
    {
        ArgumentNullException.ThrowIfNull(workItem);
        return TryQueueItem(workItem, null, CancellationToken.None);
    }

    /// <inheritdoc cref="IThreadPool.TryQueue(Action, CancellationToken)"/>
    public bool TryQueue(Action callback, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(callback);
        return TryQueueItem(callback, null, cancellationToken);
    }

    /// <inheritdoc cref="IThreadPool.TryQueue(Action{object}, object, CancellationToken)"/>
    public bool TryQueue(Action<object?> callback, object? state, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(callback);
        return TryQueueItem(callback, state, cancellationToken);
    }

    /// <inheritdoc cref="IThreadPool.TryQueue(IWorkItem, CancellationToken)"/>
    public bool TryQueue(IWorkItem workItem, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(workItem);
        return TryQueueItem(workItem, null, cancellationToken);
    }

    /// <inheritdoc cref="IThreadPool.Queue(IThreadPoolWorkItem, bool)"/>
    public void Queue(IThreadPoolWorkItem workItem, bool preferLocal)
    {
        ArgumentNullException.ThrowIfNull(workItem);
        QueueItem(NativeWorkItems.ExecuteThreadPoolWorkItem, workItem, preferLocal);
    }

    /// <inheritdoc cref="IThreadPool.TryQueue(IThreadPoolWorkItem, bool)"/>
    public bool TryQueue(IThreadPoolWorkItem workItem, bool preferLocal)
    {
        ArgumentNullException.ThrowIfNull(workItem);
        return TryQueueItem(NativeWorkItems.ExecuteThreadPoolWorkItem, workItem, preferLocal);
    }

    /// <inheritdoc cref="IThreadPool.Queue{TState}(Action{TState}, TState, bool)"/>
    public void Queue<TState>(Action<TState> callback, TState state, bool preferLocal)
    {
        ArgumentNullException.ThrowIfNull(callback);
        (object entryCallback, object? entryState) = NativeWorkItems.ForState(callback, state);
        QueueItem(entryCallback, entryState, preferLocal);
    }

    /// <inheritdoc cref="IThreadPool.TryQueue{TState}(Action{TState}, TState, bool)"/>
    public bool TryQueue<TState>(Action<TState> callback, TState state, bool preferLocal)
    {
        ArgumentNullException.ThrowIfNull(callback);
        (object entryCallback, object? entryState) = NativeWorkItems.ForState(callback, state);
        return TryQueueItem(entryCallback, entryState, preferLocal);
    }

    /// <summary>
    /// Accepts an entry (callback and state as a queue stores them, see <see cref="QueuedWorkItem"/>) or throws
    /// <see cref="ObjectDisposedException"/>; a token that can be cancelled wraps it. Where a worker queues it is the
    /// pool's default.
    /// </summary>
    private protected abstract void QueueItem(object callback, object? state, CancellationToken cancellationToken);

    /// <summary>As <see cref="QueueItem(object, object, CancellationToken)"/>, but false instead of the exception, and never waits for room.</summary>
    private protected abstract bool TryQueueItem(object callback, object? state, CancellationToken cancellationToken);

    /// <summary>Accepts an entry queued through the built-in pool's shapes, where <paramref name="preferLocal"/> says, or throws.</summary>
    private protected abstract void QueueItem(object callback, object? state, bool preferLocal);

    /// <summary>As <see cref="QueueItem(object, object, bool)"/>, but false instead of the exception, and never waits for room.</summary>
    private protected abstract bool TryQueueItem(object callback, object? state, bool preferLocal);
}
