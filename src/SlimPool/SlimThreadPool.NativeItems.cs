using SlimPool.Queues;

namespace SlimPool;

/// <summary>The built-in pool's item shapes: <see cref="IThreadPoolWorkItem"/> and <c>Action&lt;TState&gt;</c> with <c>preferLocal</c>.</summary>
public sealed partial class SlimThreadPool
{
    /// <inheritdoc />
    /// <remarks>
    /// No allocation: the item travels in the queue entry. With <see cref="SlimThreadPoolOptions.BoundedCapacity"/> set
    /// and the queue full, blocks until there is room, as <see cref="Queue(Action)"/> does.
    /// </remarks>
    public void Queue(IThreadPoolWorkItem workItem, bool preferLocal)
    {
        ArgumentNullException.ThrowIfNull(workItem);
        QueueCore(NativeWorkItems.ExecuteThreadPoolWorkItem, workItem, CancellationToken.None, preferLocal);
    }

    /// <inheritdoc />
    /// <remarks>No allocation: the item travels in the queue entry. With <see cref="SlimThreadPoolOptions.BoundedCapacity"/> set, also false while the queue is full.</remarks>
    public bool TryQueue(IThreadPoolWorkItem workItem, bool preferLocal)
    {
        ArgumentNullException.ThrowIfNull(workItem);
        return TryQueueCore(NativeWorkItems.ExecuteThreadPoolWorkItem, workItem, CancellationToken.None, preferLocal);
    }

    /// <inheritdoc />
    /// <remarks>
    /// A reference-type <typeparamref name="TState"/> costs no allocation: the delegate and the state travel in the queue
    /// entry. A value-type one is carried in a small object, which an item queueing its successor from the same worker
    /// reuses. With <see cref="SlimThreadPoolOptions.BoundedCapacity"/> set and the queue full, blocks until there is room.
    /// </remarks>
    public void Queue<TState>(Action<TState> callback, TState state, bool preferLocal)
    {
        ArgumentNullException.ThrowIfNull(callback);
        (object entryCallback, object? entryState) = NativeWorkItems.ForState(callback, state);
        QueueCore(entryCallback, entryState, CancellationToken.None, preferLocal);
    }

    /// <inheritdoc />
    /// <remarks>Costs as <see cref="Queue{TState}(Action{TState}, TState, bool)"/>. With <see cref="SlimThreadPoolOptions.BoundedCapacity"/> set, also false while the queue is full.</remarks>
    public bool TryQueue<TState>(Action<TState> callback, TState state, bool preferLocal)
    {
        ArgumentNullException.ThrowIfNull(callback);
        (object entryCallback, object? entryState) = NativeWorkItems.ForState(callback, state);
        return TryQueueCore(entryCallback, entryState, CancellationToken.None, preferLocal);
    }
}
