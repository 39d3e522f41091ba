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
public sealed class WorkStealingWorkQueue : IWorkQueue
{
    [ThreadStatic]
    private static WorkStealingDeque? t_local;

    private readonly LockFreeWorkQueue _injection = new();
    private readonly Lock _attachLock = new();

    // Indexed by worker index; replaced (copy on write) under _attachLock, read without it by thieves.
    private volatile WorkStealingDeque?[] _deques = [];

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
            long count = _injection.Count;
            foreach (WorkStealingDeque? deque in _deques)
            {
                count += deque?.Count ?? 0;
            }

            return (int)Math.Min(count, int.MaxValue);
        }
    }

    /// <inheritdoc />
    public void Enqueue(in QueuedWorkItem item)
    {
        WorkStealingDeque? local = t_local;
        if (local is not null && local.Owner == this)
        {
            local.Push(item);
        }
        else
        {
            _injection.Enqueue(item);
        }
    }

    /// <inheritdoc />
    public bool TryDequeue(out QueuedWorkItem item)
    {
        WorkStealingDeque? local = t_local;
        if (local is not null && local.Owner != this)
        {
            local = null;
        }

        if (local is not null && local.TryPop(out item))
        {
            return true;
        }

        if (_injection.TryDequeue(out item))
        {
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

    private bool TrySteal(WorkStealingDeque? local, out QueuedWorkItem item)
    {
        WorkStealingDeque?[] deques = _deques;
        int count = deques.Length;

        // Start after our own index so thieves spread over their victims instead of all hitting deque 0.
        int start = local is null ? 0 : local.WorkerIndex + 1;
        for (int i = 0; i < count; i++)
        {
            WorkStealingDeque? victim = deques[(start + i) % count];
            if (victim is not null && victim != local && victim.TrySteal(out item))
            {
                return true;
            }
        }

        item = default;
        return false;
    }
}
