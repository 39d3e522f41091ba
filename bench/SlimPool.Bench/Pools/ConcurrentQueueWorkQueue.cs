using System.Collections.Concurrent;
using SlimPool.Queues;

namespace SlimPool.Bench.Pools;

/// <summary>
/// A thin <see cref="IWorkQueue"/> over <see cref="ConcurrentQueue{T}"/>: the yardstick our own
/// <see cref="LockFreeWorkQueue"/> must match, and an example of plugging in a user's queue through
/// <see cref="SlimThreadPoolOptions.QueueFactory"/>. ConcurrentQueue meets the contract: a dequeuer that
/// reaches a claimed but unwritten slot waits for it instead of reporting empty.
/// </summary>
internal sealed class ConcurrentQueueWorkQueue : IWorkQueue
{
    private readonly ConcurrentQueue<QueuedWorkItem> _items = new();

    public bool IsEmpty => _items.IsEmpty;

    public int Count => _items.Count;

    public void Enqueue(in QueuedWorkItem item) => _items.Enqueue(item);

    public bool TryDequeue(out QueuedWorkItem item) => _items.TryDequeue(out item);
}
