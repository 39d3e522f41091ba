namespace SlimPool.Queues;

/// <summary>
/// A work-stealing <see cref="IWorkQueue"/>: a deque per pool worker plus a shared
/// <see cref="LockFreeWorkQueue"/> for items queued from outside the pool.
/// </summary>
/// <remarks>
/// <para>An item queued on a worker thread of this queue's pool goes to that worker's own deque; a worker
/// takes from its own deque first (newest first: the data it just touched is still in cache), then from the
/// shared queue, then steals the oldest item of a sibling. Items queued from other threads go to the shared
/// queue.</para>
/// <para>Order is therefore not FIFO. A worker that keeps queueing to itself runs its own items before the
/// shared queue's; siblings that are idle steal them.</para>
/// </remarks>
public sealed class WorkStealingWorkQueue : IWorkQueue, IFencedEnqueue
{
    [ThreadStatic]
    private static WorkStealingDeque? t_local;

    // How many items a worker takes from the shared queue at a time (see RefillFrom).
    private const int InjectionBatch = 16;

    // Every this many looks a worker takes from the shared queue before its own deque, so that a worker whose items
    // keep queueing successors to its deque cannot starve what waits in the shared queue (items from outside, a
    // group's yielded turn, a Low item's ticket). Tokio checks its global queue every 61 ticks for the same reason.
    private const int SharedQueueInterval = 61;

    private readonly LockFreeWorkQueue _injection = new();
    private readonly Lock _attachLock = new();

    // Indexed by worker index; replaced (copy on write) under _attachLock, read without it by thieves.
    private volatile WorkStealingDeque?[] _deques = [];

    /// <summary>
    /// Called on the worker after a refill moved items into its deque; the pool sets it to treat the refill as a
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

            foreach (WorkStealingDeque? deque in _deques)
            {
                if (deque is not null && !deque.IsEmpty)
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
            // Deques first, then the shared queue: items only move from the shared queue into a deque (RefillFrom),
            // so reading in this order can miss an item in transit but never counts one twice. (IsEmpty reads in
            // the other order for the opposite reason: it must never miss one.)
            long count = 0;
            foreach (WorkStealingDeque? deque in _deques)
            {
                count += deque?.Count ?? 0;
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

    private bool EnqueueFenced(in QueuedWorkItem item)
    {
        WorkStealingDeque? local = t_local;
        if (local is not null && local.Owner == this)
        {
            local.Push(item);
            return false;
        }

        return ((IFencedEnqueue)_injection).EnqueueFenced(item);
    }

    /// <inheritdoc />
    public bool TryDequeue(out QueuedWorkItem item)
    {
        WorkStealingDeque? local = t_local;
        if (local is not null && local.Owner != this)
        {
            local = null;
        }

        if (local is not null)
        {
            if (++local.LooksSinceShared >= SharedQueueInterval)
            {
                local.LooksSinceShared = 0;
                if (_injection.TryDequeue(out item))
                {
                    return true;
                }
            }

            if (local.TryPop(out item))
            {
                return true;
            }
        }

        if (_injection.TryDequeue(out item))
        {
            if (local is not null)
            {
                RefillFrom(local);
            }

            return true;
        }

        return TrySteal(local, out item);
    }

    /// <inheritdoc />
    public void AttachWorker(int workerIndex)
    {
        ArgumentOutOfRangeException.ThrowIfNegative(workerIndex);
        var deque = new WorkStealingDeque(this, workerIndex);
        lock (_attachLock)
        {
            WorkStealingDeque?[] deques = _deques;
            if (workerIndex < deques.Length && deques[workerIndex] is not null)
            {
                throw new InvalidOperationException($"Worker {workerIndex} is already attached to this queue.");
            }

            var copy = new WorkStealingDeque?[Math.Max(deques.Length, workerIndex + 1)];
            deques.CopyTo(copy, 0);
            copy[workerIndex] = deque;
            _deques = copy;
        }

        t_local = deque;
    }

    /// <inheritdoc />
    public void DetachWorker(int workerIndex)
    {
        WorkStealingDeque? local = t_local;
        if (local is null || local.Owner != this || local.WorkerIndex != workerIndex)
        {
            throw new InvalidOperationException($"Worker {workerIndex} is not attached to this queue on this thread.");
        }

        // The pool detaches only after seeing the queue empty, but never strand an entry: anything left
        // moves to the shared queue before the deque becomes unreachable.
        while (local.TryPop(out QueuedWorkItem item))
        {
            _injection.Enqueue(item);
        }

        lock (_attachLock)
        {
            var copy = (WorkStealingDeque?[])_deques.Clone();
            copy[workerIndex] = null;
            _deques = copy;
        }

        t_local = null;
    }

    // A worker that found its deque empty and took an item from the shared queue takes up to InjectionBatch - 1 more
    // into its own deque while it is there, with one compare-and-swap on the shared head (LockFreeWorkQueue.
    // TryDequeueBatch): consumers then meet on that line once a batch instead of once an item, which is what limited
    // the drain of a backlog queued from outside. The items stay visible (IsEmpty) and stealable by idle siblings.
    // The batch is in neither place between that one dequeue and its pushes, so IsEmpty is not linearizable: a
    // sibling whose last look (its re-check before parking) falls in that window sees nothing and parks, and the
    // pushes, plain stores, wake nobody. If this worker's own item then blocks, the moved items would wait with a
    // sibling asleep. So a refill that moved anything ends like a publish: OnRefilled (a full fence, then the
    // producer's wake check), which pairs with that sibling's announce-then-recheck. (Modelled with -DWS in
    // SpinThenParkIdleWait.pml and StarvationGuard.pml: a batch of one or two leaves in one step, pushed one by one.)
    private void RefillFrom(WorkStealingDeque local)
    {
        RefillBuffer buffer = default;
        int moved = _injection.TryDequeueBatch(buffer);
        if (moved == 0)
        {
            return;
        }

        for (int i = 0; i < moved; i++)
        {
            local.Push(buffer[i]);
        }

        OnRefilled?.Invoke();
    }

    // Room for one refill on the worker's stack: entries hold references, so no stackalloc.
    [System.Runtime.CompilerServices.InlineArray(InjectionBatch - 1)]
    private struct RefillBuffer
    {
        private QueuedWorkItem _first;
    }

    // Two passes: first from siblings with at least two entries, then a lone entry, after giving its owner a moment
    // to pop it itself (WorkStealingDeque.TryStealAfterOwnerGrace: stealing it would move a chain of items that each
    // queue their successor to this core, and back, at every step). The grace fails only when the lone entry was
    // taken meanwhile, so the contract holds (a failure saw its entries taken by others); the owner may have pushed
    // a successor since, which this call misses. The caller then sees the queue non-empty and looks again instead
    // of parking (WorkerLoop, IdleWait.WaitForWork), and an entry whose owner stays busy is stolen on a later look.
    // One call waits at most one grace per sibling that holds a lone entry, and only while no sibling holds two.
    private bool TrySteal(WorkStealingDeque? local, out QueuedWorkItem item)
    {
        WorkStealingDeque?[] deques = _deques;
        int count = deques.Length;

        // Start after our own index so thieves spread over their victims instead of all hitting deque 0.
        int start = local is null ? 0 : local.WorkerIndex + 1;
        for (int i = 0; i < count; i++)
        {
            WorkStealingDeque? victim = deques[(start + i) % count];
            if (victim is not null && victim != local && victim.TryStealIfMoreThanOne(out item))
            {
                return true;
            }
        }

        for (int i = 0; i < count; i++)
        {
            WorkStealingDeque? victim = deques[(start + i) % count];
            if (victim is not null && victim != local && victim.TryStealAfterOwnerGrace(out item))
            {
                return true;
            }
        }

        item = default;
        return false;
    }
}
