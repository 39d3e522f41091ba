using SlimPool.Workers;

namespace SlimPool.Queues;

/// <summary>
/// A FIFO <see cref="IWorkQueue"/> that guards a <see cref="Queue{T}"/> with a lock: the seed design's
/// <c>qless</c>. Simple and strictly FIFO; contended producers and consumers serialize on the lock.
/// </summary>
/// <remarks>
/// The lock is held through <see cref="ThreadInterrupts.Hold(Lock)"/>: an interrupt pending on a thread that contends it
/// (a worker after an item that left one) is given back after, not thrown half-way through a publish or a take.
/// </remarks>
public sealed class LockedWorkQueue : IWorkQueue
{
    private readonly Lock _lock = new();
    private readonly Queue<QueuedWorkItem> _items = new();

    // Written under _lock; read without it by IsEmpty/Count. An int write is atomic, and the idle
    // protocol's full fences (around Enqueue on the producer side, before the re-check on the worker side)
    // order these reads, so a volatile read is enough here.
    private int _count;

    /// <inheritdoc />
    public bool IsEmpty => Volatile.Read(ref _count) == 0;

    /// <inheritdoc />
    public int Count => Volatile.Read(ref _count);

    /// <inheritdoc />
    public void Enqueue(in QueuedWorkItem item)
    {
        using (ThreadInterrupts.Hold(_lock))
        {
            _items.Enqueue(item);
            _count = _items.Count;
        }
    }

    /// <inheritdoc />
    public bool TryDequeue(out QueuedWorkItem item)
    {
        // Cheap miss without the lock: workers poll while they spin.
        if (Volatile.Read(ref _count) == 0)
        {
            item = default;
            return false;
        }

        using (ThreadInterrupts.Hold(_lock))
        {
            bool taken = _items.TryDequeue(out item);
            _count = _items.Count;
            return taken;
        }
    }
}
