using System.Collections.Concurrent;
using BenchmarkDotNet.Attributes;
using SlimPool.Queues;

namespace SlimPool.Micro;

/// <summary>
/// The queue operations on one thread, without a pool: what one item costs to put into and take out of each
/// structure a SlimPool worker uses, when no other thread touches the same cache lines. Every invocation puts
/// <see cref="Items"/> entries in and takes them all out again; results are per item (one put plus one take).
/// </summary>
/// <remarks>
/// <para>The baseline is <see cref="ConcurrentQueue{T}"/>, the structure behind the built-in pool's global queue.
/// The rows are the paths of <see cref="WorkStealingWorkQueue"/>: the shared <see cref="LockFreeQueue{TPositions}"/> that
/// outside producers enqueue into, taken one entry at a time or in a worker's refill batches of 15
/// (<see cref="LockFreeQueue{TPositions}.TryDequeueBatch"/>), and a worker's own queues: its LIFO slot (an item that queues
/// its successor), its ring, popped by its owner or stolen half at a time by a sibling.</para>
/// <para>Costs measured with the other core's cache holding the lines (producer and consumer on different
/// threads) are higher; the queue-drain scenario of the comparison program measures those.</para>
/// </remarks>
[MemoryDiagnoser]
public class QueuePathBenchmarks
{
    /// <summary>Entries put in and taken out per invocation.</summary>
    public const int Items = 10_240; // a whole number of Rounds

    private const int RefillBatch = 15;

    private static readonly QueuedWorkItem s_entry = new(new EmptyItem(), state: null, context: null);

    private readonly ConcurrentQueue<object> _concurrentQueue = new();
    private readonly object _item = new EmptyItem();
    private readonly QueuedWorkItem[] _batch = new QueuedWorkItem[RefillBatch];
    private LockFreeQueue<PaddedHeadAndTail> _lockFree = null!;
    private LocalRunQueue _ring = null!;
    private LocalRunQueue _thiefRing = null!;
    private LifoSlot _slot = null!;

    /// <summary>
    /// Creates the structures and runs one full round through each, so their storage is at its working size
    /// (the shared queue's ring has grown to hold <see cref="Items"/>) before any measurement.
    /// </summary>
    [GlobalSetup]
    public void Setup()
    {
        _lockFree = new LockFreeQueue<PaddedHeadAndTail>();
        _ring = new LocalRunQueue();
        _thiefRing = new LocalRunQueue();
        _slot = new LifoSlot();
        ConcurrentQueueEnqueueDequeue();
        LockFreeEnqueueDequeue();
    }

    [Benchmark(Baseline = true, Description = "ConcurrentQueue enqueue + dequeue", OperationsPerInvoke = Items)]
    public int ConcurrentQueueEnqueueDequeue()
    {
        ConcurrentQueue<object> queue = _concurrentQueue;
        for (int i = 0; i < Items; i++)
        {
            queue.Enqueue(_item);
        }

        int taken = 0;
        while (queue.TryDequeue(out _))
        {
            taken++;
        }

        return Check(taken);
    }

    [Benchmark(Description = "LockFreeWorkQueue enqueue + dequeue", OperationsPerInvoke = Items)]
    public int LockFreeEnqueueDequeue()
    {
        LockFreeQueue<PaddedHeadAndTail> queue = _lockFree;
        for (int i = 0; i < Items; i++)
        {
            queue.Enqueue(s_entry);
        }

        int taken = 0;
        while (queue.TryDequeue(out _))
        {
            taken++;
        }

        return Check(taken);
    }

    [Benchmark(Description = "LockFreeWorkQueue enqueue + batch dequeue (15)", OperationsPerInvoke = Items)]
    public int LockFreeEnqueueDequeueBatch()
    {
        LockFreeQueue<PaddedHeadAndTail> queue = _lockFree;
        for (int i = 0; i < Items; i++)
        {
            queue.Enqueue(s_entry);
        }

        int taken = 0;
        int moved;
        while ((moved = queue.TryDequeueBatch(_batch)) > 0)
        {
            taken += moved;
        }

        // Entries hold references: clear the buffer as the pool's refill does by leaving its stack frame.
        Array.Clear(_batch);
        return Check(taken);
    }

    [Benchmark(Description = "LifoSlot put + owner take (a chain's step)", OperationsPerInvoke = Items)]
    public int SlotPutTake()
    {
        LifoSlot slot = _slot;
        int taken = 0;
        for (int i = 0; i < Items; i++)
        {
            slot.Put(s_entry);
            if (slot.TryTake(out _))
            {
                taken++;
            }
        }

        return Check(taken);
    }

    [Benchmark(Description = "LocalRunQueue push + owner pop (rounds of 128)", OperationsPerInvoke = Items)]
    public int RingPushPop()
    {
        LocalRunQueue ring = _ring;
        int taken = 0;
        for (int done = 0; done < Items; done += Round)
        {
            for (int i = 0; i < Round; i++)
            {
                ring.PushBack(s_entry, _lockFree);
            }

            while (ring.TryPop(out _))
            {
                taken++;
            }
        }

        return Check(taken);
    }

    [Benchmark(Description = "LocalRunQueue push + steal half (rounds of 128)", OperationsPerInvoke = Items)]
    public int RingPushStealHalf()
    {
        LocalRunQueue ring = _ring;
        LocalRunQueue thief = _thiefRing;
        int taken = 0;
        for (int done = 0; done < Items; done += Round)
        {
            for (int i = 0; i < Round; i++)
            {
                ring.PushBack(s_entry, _lockFree);
            }

            int stolen;
            while ((stolen = ring.TryStealHalfInto(thief, out _)) > 0)
            {
                taken += stolen;
            }

            while (thief.TryPop(out _))
            {
            }
        }

        return Check(taken);
    }

    // A round fills the ring half way: it never overflows into the shared queue.
    private const int Round = 128;

    // A benchmark that lost or duplicated entries would measure nothing; fail it instead.
    private static int Check(int taken) =>
        taken == Items ? taken : throw new InvalidOperationException($"Took {taken} entries out of {Items}.");

    private sealed class EmptyItem : IWorkItem
    {
        public void Execute()
        {
        }
    }
}
