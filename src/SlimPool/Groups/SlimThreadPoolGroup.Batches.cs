using SlimPool.Queues;

namespace SlimPool;

/// <summary>Batch queueing on a group: many items from one call, all or none, in order.</summary>
public sealed partial class SlimThreadPoolGroup
{
    /// <summary>
    /// Queues every item of <paramref name="workItems"/> in the group, in order, as one call: the whole batch is accepted
    /// or none of it, as <see cref="SlimThreadPool.QueueBatch(ReadOnlySpan{IWorkItem})"/> on the pool. A serial group runs
    /// them in this order; the group takes as many turns on the pool as the batch can use, up to
    /// <see cref="MaxConcurrency"/>.
    /// </summary>
    /// <param name="workItems">The items, in order; none may be null. An empty batch queues nothing.</param>
    /// <remarks>Each item holds one of the pool's <see cref="SlimThreadPoolOptions.BoundedCapacity"/> slots until a turn
    /// takes it, as a single item does: with a bound, the call waits until the pool has room for the whole batch (on one of
    /// the pool's workers it goes over the bound instead of waiting).</remarks>
    /// <exception cref="ArgumentException">An item is null, or the batch is larger than the pool's
    /// <see cref="SlimThreadPoolOptions.BoundedCapacity"/>.</exception>
    /// <exception cref="ObjectDisposedException">The group or its pool no longer accepts work (none of the batch was queued).</exception>
    public void QueueBatch(ReadOnlySpan<IWorkItem> workItems)
    {
        _pool.CheckBatch(workItems);
        var batch = new WorkItemBatch(workItems, _pool.CaptureContextToFlow());
        AcceptBatchOrThrow(ref batch);
    }

    /// <summary>
    /// Queues <c>callback(state)</c> in the group for every state of <paramref name="states"/>, in order, as one call (see
    /// <see cref="QueueBatch(ReadOnlySpan{IWorkItem})"/>).
    /// </summary>
    /// <param name="callback">The work, run once for each state.</param>
    /// <param name="states">One state per item, in order.</param>
    /// <exception cref="ArgumentNullException"><paramref name="callback"/> is <see langword="null"/>.</exception>
    /// <exception cref="ArgumentException">The batch is larger than the pool's <see cref="SlimThreadPoolOptions.BoundedCapacity"/>.</exception>
    /// <exception cref="ObjectDisposedException">The group or its pool no longer accepts work (none of the batch was queued).</exception>
    public void QueueBatch(Action<object?> callback, ReadOnlySpan<object?> states)
    {
        ArgumentNullException.ThrowIfNull(callback);
        _pool.CheckBatchSize(states.Length, nameof(states));
        var batch = new StateBatch(callback, states, _pool.CaptureContextToFlow());
        AcceptBatchOrThrow(ref batch);
    }

    /// <summary>
    /// Queues every item of <paramref name="workItems"/> in the group as <see cref="QueueBatch(ReadOnlySpan{IWorkItem})"/>
    /// does, or none: false if the group or its pool no longer accepts work or the pool has no room for the whole batch now.
    /// Never waits.
    /// </summary>
    /// <param name="workItems">The items, in order; none may be null.</param>
    /// <returns><see langword="true"/> if the whole batch was queued; <see langword="false"/> if none of it was.</returns>
    /// <exception cref="ArgumentException">An item is null, or the batch is larger than the pool's
    /// <see cref="SlimThreadPoolOptions.BoundedCapacity"/>.</exception>
    public bool TryQueueBatch(ReadOnlySpan<IWorkItem> workItems)
    {
        _pool.CheckBatch(workItems);
        var batch = new WorkItemBatch(workItems, _pool.CaptureContextToFlow());
        return TryAcceptBatch(ref batch, waitForRoom: false);
    }

    /// <summary>
    /// Queues <c>callback(state)</c> in the group for every state of <paramref name="states"/>, or none (see
    /// <see cref="TryQueueBatch(ReadOnlySpan{IWorkItem})"/>).
    /// </summary>
    /// <param name="callback">The work, run once for each state.</param>
    /// <param name="states">One state per item, in order.</param>
    /// <returns><see langword="true"/> if the whole batch was queued; <see langword="false"/> if none of it was.</returns>
    /// <exception cref="ArgumentNullException"><paramref name="callback"/> is <see langword="null"/>.</exception>
    /// <exception cref="ArgumentException">The batch is larger than the pool's <see cref="SlimThreadPoolOptions.BoundedCapacity"/>.</exception>
    public bool TryQueueBatch(Action<object?> callback, ReadOnlySpan<object?> states)
    {
        ArgumentNullException.ThrowIfNull(callback);
        _pool.CheckBatchSize(states.Length, nameof(states));
        var batch = new StateBatch(callback, states, _pool.CaptureContextToFlow());
        return TryAcceptBatch(ref batch, waitForRoom: false);
    }

    // An empty batch is accepted while the group and its pool accept work, and queues nothing.
    private bool TryAcceptBatch<TBatch>(scoped ref TBatch batch, bool waitForRoom)
        where TBatch : IBatchSource, allows ref struct =>
        batch.Count == 0 ? !_pool.IsShutDown && !_turns.IsClosed : _turns.TryAcceptBatch(ref batch, waitForRoom);

    private void AcceptBatchOrThrow<TBatch>(scoped ref TBatch batch)
        where TBatch : IBatchSource, allows ref struct
    {
        if (!TryAcceptBatch(ref batch, waitForRoom: true))
        {
            ThrowShutDown();
        }
    }
}
