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
/// The rows are the paths of <see cref="WorkStealingWorkQueue"/>: the shared <see cref="LockFreeWorkQueue"/> that
/// outside producers enqueue into, taken one entry at a time or in a worker's refill batches of 15
/// (<see cref="LockFreeWorkQueue.TryDequeueBatch"/>), and a worker's own deque, popped by its owner or stolen by a
/// sibling.</para>
/// <para>Costs measured with the other core's cache holding the lines (producer and consumer on different
/// threads) are higher; the queue-drain scenario of the comparison program measures those.</para>
/// </remarks>
[MemoryDiagnoser]
public class QueuePathBenchmarks
{
    /// <summary>Entries put in and taken out per invocation.</summary>
    public const int Items = 10_000;

    private const int RefillBatch = 15;

    private static readonly QueuedWorkItem s_entry = new(new EmptyItem(), state: null, context: null);

    private readonly ConcurrentQueue<object> _concurrentQueue = new();
    private readonly object _item = new EmptyItem();
    private readonly QueuedWorkItem[] _batch = new QueuedWorkItem[RefillBatch];
    private LockFreeWorkQueue _lockFree = null!;
    private WorkStealingDeque _deque = null!;

    /// <summary>
    /// Creates the structures and runs one full round through each, so their storage is at its working size
    /// (the ring has grown to hold <see cref="Items"/>, the deque's array too) before any measurement.
    /// </summary>
    [GlobalSetup]
    public void Setup()
    {
        _lockFree = new LockFreeWorkQueue();
        _deque = new WorkStealingDeque(owner: this, workerIndex: 0);
        ConcurrentQueueEnqueueDequeue();
        LockFreeEnqueueDequeue();
        DequePushPop();
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
        LockFreeWorkQueue queue = _lockFree;
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
        LockFreeWorkQueue queue = _lockFree;
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

    [Benchmark(Description = "WorkStealingDeque push + owner pop", OperationsPerInvoke = Items)]
    public int DequePushPop()
    {
        WorkStealingDeque deque = _deque;
        for (int i = 0; i < Items; i++)
        {
            deque.Push(s_entry);
        }

        int taken = 0;
        while (deque.TryPop(out _))
        {
            taken++;
        }

        return Check(taken);
    }

    [Benchmark(Description = "WorkStealingDeque push + steal", OperationsPerInvoke = Items)]
    public int DequePushSteal()
    {
        WorkStealingDeque deque = _deque;
        for (int i = 0; i < Items; i++)
        {
            deque.Push(s_entry);
        }

        int taken = 0;
        while (deque.TrySteal(out _))
        {
            taken++;
        }

        // A thief never clears the slots it took; the owner does when it next finds the deque empty.
        deque.TryPop(out _);
        return Check(taken);
    }

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
