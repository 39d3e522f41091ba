using System.Collections.Concurrent;
using SlimPool.Queues;

namespace SlimPool.Tests.Infrastructure;

/// <summary>
/// A user's queue whose enqueue, dequeue or both take a lock (<see cref="Gate"/>): a test holds it to make the pool's
/// call contend it, where a wait throws at an interrupt pending on the calling thread.
/// </summary>
internal sealed class LockingQueue(bool lockEnqueue, bool lockDequeue) : IWorkQueue
{
    private readonly ConcurrentQueue<QueuedWorkItem> _items = new();

    public Lock Gate { get; } = new();

    public bool IsEmpty => _items.IsEmpty;

    public int Count => _items.Count;

    public void Enqueue(in QueuedWorkItem item)
    {
        if (!lockEnqueue)
        {
            _items.Enqueue(item);
            return;
        }

        lock (Gate)
        {
            _items.Enqueue(item);
        }
    }

    public bool TryDequeue(out QueuedWorkItem item)
    {
        if (!lockDequeue)
        {
            return _items.TryDequeue(out item);
        }

        lock (Gate)
        {
            return _items.TryDequeue(out item);
        }
    }
}
