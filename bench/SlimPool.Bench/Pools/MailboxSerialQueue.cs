using System.Collections.Concurrent;
using SlimPool.Bench.Work;

namespace SlimPool.Bench.Pools;

/// <summary>
/// A serial queue written by hand on a pool, as an actor mailbox is (Akka.NET's, for one): a
/// <see cref="ConcurrentQueue{T}"/> and a scheduled flag. The producer that raises the flag queues the mailbox itself
/// as one pool item, which runs up to <see cref="Throughput"/> items and then gives the pool back, going to the back of
/// its queue if items remain: a SlimPool group's turn length (32 items), though a group's turn runs on instead when
/// nothing else is queued on the pool, which the built-in pool's API does not tell cheaply. No allocation per item.
/// </summary>
/// <remarks>
/// Lost wake-up: a producer enqueues (a compare-and-swap, a full fence) and then reads the flag; the runner clears the
/// flag with an exchange (a full fence) and then looks at the queue. Either the producer sees the flag down and
/// schedules, or the runner sees the item and schedules again.
/// </remarks>
internal sealed class MailboxSerialQueue<TPool>(TPool pool) : BenchWorkItem, ISerialQueue
    where TPool : struct, IBenchPool
{
    /// <summary>Items one turn runs before the mailbox gives its thread back.</summary>
    public const int Throughput = 32;

    private readonly ConcurrentQueue<BenchWorkItem> _items = new();
    private int _scheduled;

    public void Post(BenchWorkItem item)
    {
        _items.Enqueue(item);
        if (Volatile.Read(ref _scheduled) == 0 && Interlocked.CompareExchange(ref _scheduled, 1, 0) == 0)
        {
            pool.Queue(this);
        }
    }

    public void PostFromPool(BenchWorkItem item)
    {
        _items.Enqueue(item);
        if (Volatile.Read(ref _scheduled) == 0 && Interlocked.CompareExchange(ref _scheduled, 1, 0) == 0)
        {
            pool.QueueFromPool(this); // the built-in pool at its best for a chain: the worker's local queue
        }
    }

    public override void Execute()
    {
        for (int i = 0; i < Throughput && _items.TryDequeue(out BenchWorkItem? item); i++)
        {
            item.Execute();
        }

        Interlocked.Exchange(ref _scheduled, 0);
        if (!_items.IsEmpty && Interlocked.CompareExchange(ref _scheduled, 1, 0) == 0)
        {
            pool.Queue(this); // from a pool thread, but to the back of the shared queue (Queue, not QueueFromPool)
        }
    }

    public void Dispose()
    {
    }
}
