using SlimPool.Queues;
using SlimPool.Scheduling;

namespace SlimPool;

/// <summary>Batch queueing: many items from one call, with one reservation and one wake for each chunk of them.</summary>
public sealed partial class SlimThreadPool
{
    /// <summary>
    /// Queues every item of <paramref name="workItems"/>, in order, as one call: the whole batch is accepted or none of
    /// it. Cheaper per item than one <see cref="ThreadPoolBase.Queue(IWorkItem)"/> call each: the items go to the shared queue in chunks
    /// of 64 (Publisher.BatchChunk), each made visible with one compare-and-swap and followed by one wake check.
    /// </summary>
    /// <param name="workItems">The items, queued in this order; none may be null. An empty batch queues nothing.</param>
    /// <remarks>
    /// <para>The items go where every worker takes from (the shared queue), even when the caller is one of the pool's
    /// workers: a batch is work to spread, and its items start in the order given when one worker takes them all.</para>
    /// <para>With <see cref="SlimThreadPoolOptions.BoundedCapacity"/> set, the call waits until there is room for the
    /// whole batch, as <see cref="ThreadPoolBase.Queue(IWorkItem)"/> waits for room for one; on one of the pool's own workers it goes
    /// over the bound instead of waiting on its own pool. The items run in the caller's ExecutionContext when
    /// <see cref="SlimThreadPoolOptions.FlowExecutionContext"/> is set (captured once for the batch), at
    /// <see cref="WorkItemPriority.Normal"/>, without a cancellation token.</para>
    /// </remarks>
    /// <exception cref="ArgumentException">An item is null, or the batch is larger than
    /// <see cref="SlimThreadPoolOptions.BoundedCapacity"/> (it could never fit).</exception>
    /// <exception cref="ObjectDisposedException">The pool no longer accepts work (none of the batch was queued).</exception>
    public void QueueBatch(ReadOnlySpan<IWorkItem> workItems)
    {
        CheckBatch(workItems);
        if (!TryQueueBatchCore(new WorkItemBatch(workItems, CaptureContextToFlow()), wait: true))
        {
            ThrowDisposed();
        }
    }

    /// <summary>
    /// Queues <c>callback(state)</c> for every state of <paramref name="states"/>, in order, as one call (see
    /// <see cref="QueueBatch(ReadOnlySpan{IWorkItem})"/>).
    /// </summary>
    /// <param name="callback">The work, run once for each state.</param>
    /// <param name="states">One state per item, queued in this order; null states are passed as they are.</param>
    /// <exception cref="ArgumentNullException"><paramref name="callback"/> is <see langword="null"/>.</exception>
    /// <exception cref="ArgumentException">The batch is larger than <see cref="SlimThreadPoolOptions.BoundedCapacity"/>.</exception>
    /// <exception cref="ObjectDisposedException">The pool no longer accepts work (none of the batch was queued).</exception>
    public void QueueBatch(Action<object?> callback, ReadOnlySpan<object?> states)
    {
        ArgumentNullException.ThrowIfNull(callback);
        CheckBatchSize(states.Length, nameof(states));
        if (!TryQueueBatchCore(new StateBatch(callback, states, CaptureContextToFlow()), wait: true))
        {
            ThrowDisposed();
        }
    }

    /// <summary>
    /// Queues every item of <paramref name="workItems"/> as <see cref="QueueBatch(ReadOnlySpan{IWorkItem})"/> does, or
    /// none: false if the pool no longer accepts work or, with <see cref="SlimThreadPoolOptions.BoundedCapacity"/> set,
    /// has no room for the whole batch now. Never waits.
    /// </summary>
    /// <param name="workItems">The items, queued in this order; none may be null.</param>
    /// <returns><see langword="true"/> if the whole batch was queued; <see langword="false"/> if none of it was.</returns>
    /// <exception cref="ArgumentException">An item is null, or the batch is larger than
    /// <see cref="SlimThreadPoolOptions.BoundedCapacity"/>.</exception>
    public bool TryQueueBatch(ReadOnlySpan<IWorkItem> workItems)
    {
        CheckBatch(workItems);
        return TryQueueBatchCore(new WorkItemBatch(workItems, CaptureContextToFlow()), wait: false);
    }

    /// <summary>
    /// Queues <c>callback(state)</c> for every state of <paramref name="states"/>, or none (see
    /// <see cref="TryQueueBatch(ReadOnlySpan{IWorkItem})"/>).
    /// </summary>
    /// <param name="callback">The work, run once for each state.</param>
    /// <param name="states">One state per item, queued in this order.</param>
    /// <returns><see langword="true"/> if the whole batch was queued; <see langword="false"/> if none of it was.</returns>
    /// <exception cref="ArgumentNullException"><paramref name="callback"/> is <see langword="null"/>.</exception>
    /// <exception cref="ArgumentException">The batch is larger than <see cref="SlimThreadPoolOptions.BoundedCapacity"/>.</exception>
    public bool TryQueueBatch(Action<object?> callback, ReadOnlySpan<object?> states)
    {
        ArgumentNullException.ThrowIfNull(callback);
        CheckBatchSize(states.Length, nameof(states));
        return TryQueueBatchCore(new StateBatch(callback, states, CaptureContextToFlow()), wait: false);
    }

    /// <summary>Throws unless every item is set and the batch fits the pool's bound (a group's batch too).</summary>
    internal void CheckBatch(ReadOnlySpan<IWorkItem> workItems)
    {
        // Every item is checked before any is queued: a bad batch queues nothing.
        for (int i = 0; i < workItems.Length; i++)
        {
            if (workItems[i] is null)
            {
                throw new ArgumentException($"The batch's item at index {i} is null.", nameof(workItems));
            }
        }

        CheckBatchSize(workItems.Length, nameof(workItems));
    }

    /// <summary>Throws unless a batch of <paramref name="count"/> items fits the pool's bound.</summary>
    internal void CheckBatchSize(int count, string paramName)
    {
        if (_gate is { } gate && count > gate.Capacity)
        {
            throw new ArgumentException(
                $"The batch has {count} items, more than the pool's {nameof(SlimThreadPoolOptions.BoundedCapacity)} of {gate.Capacity}: it could never be queued whole.",
                paramName);
        }
    }

    // The batch is accepted whole or refused whole: refused before any slot is taken once the pool shut down, and after
    // the slots are taken if it shut down meanwhile (the publisher's flag read; the slots go back then).
    private bool TryQueueBatchCore<TBatch>(TBatch batch, bool wait)
        where TBatch : IBatchSource, allows ref struct
    {
        int count = batch.Count;
        if (_shutdown.IsShutDown)
        {
            return false;
        }

        if (count == 0)
        {
            return true;
        }

        if (!TryReserveSlots(count, wait))
        {
            return false;
        }

        if (!_publisher.TryPublishBatch(ref batch))
        {
            ReleaseSlots(count);
            return false;
        }

        return true;
    }

    /// <summary>
    /// A bounded pool's slots for a whole batch (the pool's or a group's): at once if free, else (<paramref name="wait"/>)
    /// waiting for them all off the pool, or over the bound on one of its workers (a worker never waits on its own pool).
    /// False, holding none, when they are not free and the caller does not wait, when the pool shut down meanwhile, or
    /// when <paramref name="cancellationToken"/> ended the wait (a group that shut down meanwhile).
    /// </summary>
    internal bool TryReserveSlots(int count, bool wait, CancellationToken cancellationToken = default)
    {
        CapacityGate? gate = _gate;
        if (gate is null || gate.TryAcquire(count))
        {
            return true;
        }

        if (!wait)
        {
            return false;
        }

        if (IsOwnWorker)
        {
            gate.ForceAcquire(count);
            return true;
        }

        return gate.AcquireBlocking(count, cancellationToken);
    }

    /// <summary>
    /// Waits for one capacity slot without blocking a thread (a group's <c>QueueAsync</c>): true once taken (at once on an
    /// unbounded pool), false when the pool shut down meanwhile.
    /// </summary>
    internal ValueTask<bool> ReserveSlotAsync(CancellationToken cancellationToken) =>
        _gate is { } gate ? gate.AcquireAsync(cancellationToken) : new(!IsShutDown);

    /// <summary>Gives back slots taken by <see cref="TryReserveSlots"/>.</summary>
    internal void ReleaseSlots(int count) => _gate?.Release(count);
}
