namespace SlimPool.Queues;

/// <summary>
/// A work-stealing <see cref="IWorkQueue"/>: per pool worker, a deque of the items queued on it and a batch of items it
/// took from the shared queue; plus a shared <see cref="LockFreeWorkQueue"/> for items queued from outside the pool.
/// </summary>
/// <remarks>
/// <para>An item queued on a worker thread of this queue's pool goes to that worker's own deque; a worker takes from
/// its own deque first (newest first: the data it just touched is still in cache), then from its batch, then from the
/// shared queue (taking up to <see cref="RefillBatch.Capacity"/> more into its batch), then steals from a sibling (the
/// oldest entry of its deque, or of its batch). Items queued from other threads go to the shared queue.</para>
/// <para><b>Nothing is buried.</b> Every <see cref="FairInterval"/> looks a worker takes the oldest item queued from
/// outside first (its batch, then the shared queue), and half-way between those, the oldest item of its own deque. So
/// items that keep queueing successors to the worker (self-requeuing chains) cannot hold back what waits in the
/// batch, the shared queue (items from outside, a group's yielded turn, a Low item's ticket) or deep in the deque:
/// the k-th oldest item in either place starts within k × <see cref="FairInterval"/> looks of the worker, sooner if
/// a sibling steals it. Tokio checks its global queue every 61 ticks for the same reason.</para>
/// <para><b>Order.</b> Items from the shared queue keep their order: a batch is taken oldest first, and a worker takes
/// from the shared queue only once its batch is empty. With one worker, items queued from one thread outside the pool
/// therefore start in the order queued. Items queued on workers have no order (the owner takes the newest).</para>
/// </remarks>
public sealed class WorkStealingWorkQueue : IWorkQueue, IFencedEnqueue
{
    /// <summary>A worker's fair looks come every this many looks (see the remarks).</summary>
    internal const int FairInterval = 61;

    [ThreadStatic]
    private static WorkerQueues? t_local;

    private readonly LockFreeWorkQueue _injection = new();
    private readonly Lock _attachLock = new();

    // Indexed by worker index; replaced (copy on write) under _attachLock, read without it by thieves.
    private volatile WorkerQueues?[] _locals = [];

    /// <summary>
    /// Called on the worker after a refill moved items into its batch; the pool sets it to treat the refill as a
    /// publication (a full fence, then its wake check): see <see cref="RefillFrom"/>.
    /// </summary>
    internal Action? OnRefilled { get; set; }

    /// <inheritdoc />
    public bool IsEmpty
    {
        get
        {
            if (!_injection.IsEmpty)
            {
                return false;
            }

            foreach (WorkerQueues? local in _locals)
            {
                if (local is not null && !local.IsEmpty)
                {
                    return false;
                }
            }

            return true;
        }
    }

    /// <inheritdoc />
    public int Count
    {
        get
        {
            // Workers first, then the shared queue: items only move from the shared queue into a batch (RefillFrom),
            // so reading in this order can miss an item in transit but never counts one twice. (IsEmpty reads in
            // the other order for the opposite reason: it must never miss one.)
            long count = 0;
            foreach (WorkerQueues? local in _locals)
            {
                count += local?.Count ?? 0;
            }

            count += _injection.Count;

            return (int)Math.Min(count, int.MaxValue);
        }
    }

    /// <inheritdoc />
    public void Enqueue(in QueuedWorkItem item) => EnqueueFenced(item);

    // The shared queue's enqueue ends with a full fence (LockFreeWorkQueue); a push onto the worker's own deque
    // is plain stores, so that path leaves the fence to the caller.
    bool IFencedEnqueue.EnqueueFenced(in QueuedWorkItem item) => EnqueueFenced(item);

    // The shared queue, even on a worker: behind what is queued there, where every worker and no deque's LIFO order
    // reaches it first.
    bool IFencedEnqueue.EnqueueFencedShared(in QueuedWorkItem item) => ((IFencedEnqueue)_injection).EnqueueFenced(item);

    // A batch goes to the shared queue from any thread: its items keep their order, and idle siblings take them.
    bool IFencedEnqueue.EnqueueBatchFenced<TBatch>(scoped ref TBatch items, int start, int length) =>
        _injection.EnqueueBatchUntilRetired(ref items, start, length) > 0; // the shared queue is never retired

    private bool EnqueueFenced(in QueuedWorkItem item)
    {
        WorkerQueues? local = t_local;
        if (local is not null && local.Owner == this)
        {
            local.Deque.Push(item);
            return false;
        }

        return ((IFencedEnqueue)_injection).EnqueueFenced(item);
    }

    /// <inheritdoc />
    public bool TryDequeue(out QueuedWorkItem item)
    {
        WorkerQueues? local = t_local;
        if (local is not null && local.Owner != this)
        {
            local = null;
        }

        if (local is not null)
        {
            // The fair looks (see the remarks): the oldest item from outside, and half-way between, the oldest of
            // the deque. Otherwise the deque's newest, then the batch.
            int looks = ++local.Looks;
            if (looks >= FairInterval)
            {
                local.Looks = 0;
                if (local.Batch.TryTake(out item) || TryTakeShared(local, out item))
                {
                    return true;
                }
            }
            else if (looks == FairInterval / 2 && local.Deque.TrySteal(out item))
            {
                return true;
            }

            if (local.Deque.TryPop(out item) || local.Batch.TryTake(out item))
            {
                return true;
            }

            if (local.StealFirst)
            {
                local.StealFirst = false;
                if (TrySteal(local, out item))
                {
                    return true;
                }
            }
        }

        if (TryTakeShared(local, out item))
        {
            return true;
        }

        if (TrySteal(local, out item))
        {
            return true;
        }

        local?.Batch.ClearTaken();
        return false;
    }

    /// <summary>
    /// On a worker of this queue: its next look steals from its siblings before it takes from the shared queue. A Low
    /// item's ticket that deferred itself to the shared queue, because other work waits, says so: otherwise the worker
    /// would take the ticket straight back, again and again, and never reach the other work in a sibling's deque.
    /// </summary>
    internal void LookAtSiblingsFirst()
    {
        WorkerQueues? local = t_local;
        if (local is not null && local.Owner == this)
        {
            local.StealFirst = true;
        }
    }

    // The shared queue's oldest item; a worker (whose batch is empty here) also takes a batch behind it.
    private bool TryTakeShared(WorkerQueues? local, out QueuedWorkItem item)
    {
        if (!_injection.TryDequeue(out item))
        {
            return false;
        }

        if (local is not null)
        {
            RefillFrom(local);
        }

        return true;
    }

    /// <inheritdoc />
    public void AttachWorker(int workerIndex)
    {
        ArgumentOutOfRangeException.ThrowIfNegative(workerIndex);
        var local = new WorkerQueues(this, workerIndex);
        lock (_attachLock)
        {
            WorkerQueues?[] locals = _locals;
            if (workerIndex < locals.Length && locals[workerIndex] is not null)
            {
                throw new InvalidOperationException($"Worker {workerIndex} is already attached to this queue.");
            }

            var copy = new WorkerQueues?[Math.Max(locals.Length, workerIndex + 1)];
            locals.CopyTo(copy, 0);
            copy[workerIndex] = local;
            _locals = copy;
        }

        t_local = local;
    }

    /// <inheritdoc />
    public void DetachWorker(int workerIndex)
    {
        WorkerQueues? local = t_local;
        if (local is null || local.Owner != this || local.WorkerIndex != workerIndex)
        {
            throw new InvalidOperationException($"Worker {workerIndex} is not attached to this queue on this thread.");
        }

        // The pool detaches only after seeing the queue empty, but never strand an entry: anything left
        // moves to the shared queue before the deque becomes unreachable.
        while (local.Batch.TryTake(out QueuedWorkItem item) || local.Deque.TryPop(out item))
        {
            _injection.Enqueue(item);
        }

        lock (_attachLock)
        {
            var copy = (WorkerQueues?[])_locals.Clone();
            copy[workerIndex] = null;
            _locals = copy;
        }

        t_local = null;
    }

    // A worker that took an item from the shared queue with its batch empty takes up to RefillBatch.Capacity more into
    // its batch while it is there, with one compare-and-swap on the shared head (LockFreeWorkQueue.TryDequeueBatch):
    // consumers then meet on that line once a batch instead of once an item, which is what limited the drain of a
    // backlog queued from outside. The items stay visible (IsEmpty) and stealable by idle siblings, and keep their order.
    // The batch is in neither place between that one dequeue and the fill's exchange, so IsEmpty is not
    // linearizable: a sibling whose last look (its re-check before parking) falls in that window sees nothing and
    // parks, and the fill wakes nobody. If this worker's own item then blocks, the moved items would wait with a
    // sibling asleep. So a refill that moved anything ends like a publish: OnRefilled (a full fence, then the
    // producer's wake check), which pairs with that sibling's announce-then-recheck. (Modelled with -DWS in
    // SpinThenParkIdleWait.pml and StarvationGuard.pml: a batch of one or two leaves in one step and arrives item by
    // item, which includes the fill's arrival in one step.)
    private void RefillFrom(WorkerQueues local)
    {
        RefillBuffer buffer = default;
        int moved = _injection.TryDequeueBatch(buffer);
        if (moved == 0)
        {
            return;
        }

        local.Batch.Fill(((ReadOnlySpan<QueuedWorkItem>)buffer)[..moved]);
        OnRefilled?.Invoke();
    }

    // Room for one refill on the worker's stack: entries hold references, so no stackalloc.
    [System.Runtime.CompilerServices.InlineArray(RefillBatch.Capacity)]
    private struct RefillBuffer
    {
        private QueuedWorkItem _first;
    }

    // Two passes: first a sibling's batch or a deque with at least two entries, then a lone deque entry, after giving
    // its owner a moment to pop it itself (WorkStealingDeque.TryStealAfterOwnerGrace: stealing it would move a chain of
    // items that each queue their successor to this core, and back, at every step). A batch's items came from outside
    // and are stolen without a grace. The grace fails only when the lone entry was taken meanwhile, so the contract
    // holds (a failure saw its entries taken by others); the owner may have pushed a successor since, which this call
    // misses. The caller then sees the queue non-empty and looks again instead of parking (WorkerLoop,
    // IdleWait.WaitForWork), and an entry whose owner stays busy is stolen on a later look. One call waits at most one
    // grace per sibling that holds a lone entry, and only while no sibling holds more.
    private bool TrySteal(WorkerQueues? local, out QueuedWorkItem item)
    {
        WorkerQueues?[] locals = _locals;
        int count = locals.Length;

        // Start after our own index so thieves spread over their victims instead of all hitting worker 0.
        int start = local is null ? 0 : local.WorkerIndex + 1;
        for (int i = 0; i < count; i++)
        {
            WorkerQueues? victim = locals[(start + i) % count];
            if (victim is not null && victim != local && (victim.Deque.TryStealIfMoreThanOne(out item) || victim.Batch.TryTake(out item)))
            {
                return true;
            }
        }

        for (int i = 0; i < count; i++)
        {
            WorkerQueues? victim = locals[(start + i) % count];
            if (victim is not null && victim != local && victim.Deque.TryStealAfterOwnerGrace(out item))
            {
                return true;
            }
        }

        item = default;
        return false;
    }
}
