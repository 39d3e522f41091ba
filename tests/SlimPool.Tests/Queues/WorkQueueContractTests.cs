using SlimPool.Queues;
using SlimPool.Tests.Infrastructure;

namespace SlimPool.Tests.Queues;

/// <summary>The <see cref="IWorkQueue"/> contract, run against each queue on its own (no pool).</summary>
public abstract class WorkQueueContractTests
{
    protected abstract IWorkQueue CreateQueue();

    internal static QueuedWorkItem Entry(int id) => new(new IdBox(id), null, null);

    internal static int IdOf(in QueuedWorkItem item) => ((IdBox)ItemCallback(item)).Id;

    [Fact]
    public void NewQueue_IsEmptyWithCountZeroAndDequeueFails()
    {
        IWorkQueue queue = CreateQueue();

        Assert.True(queue.IsEmpty);
        Assert.Equal(0, queue.Count);
        Assert.False(queue.TryDequeue(out QueuedWorkItem item));
        Assert.True(item.IsEmpty);
    }

    [Fact]
    public void Enqueue_ThenDequeueAll_ReturnsEachEntryOnceAndEndsEmpty()
    {
        const int Items = 10_000; // several segments / growths
        IWorkQueue queue = CreateQueue();
        for (int i = 0; i < Items; i++)
        {
            queue.Enqueue(Entry(i));
        }

        Assert.False(queue.IsEmpty);
        Assert.Equal(Items, queue.Count);

        var seen = new bool[Items];
        for (int i = 0; i < Items; i++)
        {
            Assert.True(queue.TryDequeue(out QueuedWorkItem item), $"dequeue {i} failed with entries left");
            int id = IdOf(item);
            Assert.False(seen[id], $"entry {id} returned twice");
            seen[id] = true;
        }

        Assert.All(seen, Assert.True);
        Assert.True(queue.IsEmpty);
        Assert.Equal(0, queue.Count);
        Assert.False(queue.TryDequeue(out _));
    }

    [Theory]
    [InlineData(1, 1)]
    [InlineData(2, 2)]
    [InlineData(4, 3)]
    [Trait("Category", "Stress")]
    public void ConcurrentProducersAndConsumers_EachEntryDequeuedExactlyOnce(int producers, int consumers)
    {
        int perProducer = StressSize.Pick(quick: 50_000, longRun: 5_000_000) / producers;
        int total = perProducer * producers;
        IWorkQueue queue = CreateQueue();
        var counts = new int[total];
        int dequeued = 0;
        int producersLeft = producers;

        var producerTasks = Enumerable.Range(0, producers).Select(p => Task.Factory.StartNew(() =>
        {
            for (int i = 0; i < perProducer; i++)
            {
                queue.Enqueue(Entry(p * perProducer + i));
            }

            Interlocked.Decrement(ref producersLeft);
        }, TaskCreationOptions.LongRunning));
        var consumerTasks = Enumerable.Range(0, consumers).Select(_ => Task.Factory.StartNew(() =>
        {
            var stopwatch = System.Diagnostics.Stopwatch.StartNew();
            while (Volatile.Read(ref dequeued) < total && stopwatch.Elapsed < Bounded.Timeout)
            {
                if (queue.TryDequeue(out QueuedWorkItem item))
                {
                    Interlocked.Increment(ref counts[IdOf(item)]);
                    Interlocked.Increment(ref dequeued);
                }
            }
        }, TaskCreationOptions.LongRunning));

        Bounded.Wait(Task.WhenAll(producerTasks.Concat(consumerTasks)), "producers and consumers");
        Assert.Equal(total, Volatile.Read(ref dequeued));
        Assert.All(counts, c => Assert.Equal(1, c));
        Assert.True(queue.IsEmpty);
    }

    internal static object ItemCallback(in QueuedWorkItem item) => item.StoredCallback;

    internal sealed class IdBox(int id) : IWorkItem
    {
        public int Id => id;

        public void Execute()
        {
        }
    }
}

/// <summary>Queues that promise FIFO order for one producer and one consumer.</summary>
public abstract class FifoWorkQueueContractTests : WorkQueueContractTests
{
    [Fact]
    public void OneProducerOneConsumer_DequeuesInEnqueueOrder()
    {
        const int Items = 200_000;
        IWorkQueue queue = CreateQueue();
        int failures = 0;
        var consumer = Task.Factory.StartNew(() =>
        {
            int expected = 0;
            var stopwatch = System.Diagnostics.Stopwatch.StartNew();
            while (expected < Items && stopwatch.Elapsed < Bounded.Timeout)
            {
                if (queue.TryDequeue(out QueuedWorkItem item))
                {
                    if (IdOf(item) != expected)
                    {
                        failures++;
                    }

                    expected++;
                }
            }

            return expected;
        }, TaskCreationOptions.LongRunning);

        for (int i = 0; i < Items; i++)
        {
            queue.Enqueue(Entry(i));
        }

        Assert.Equal(Items, Bounded.Result(consumer, "the consumer"));
        Assert.Equal(0, failures);
    }
}

public sealed class LockedWorkQueueTests : FifoWorkQueueContractTests
{
    protected override IWorkQueue CreateQueue() => new LockedWorkQueue();
}

/// <summary>The lock-free queue with the layout a group's queue has (<see cref="CompactHeadAndTail"/>), under the same contract.</summary>
public sealed class CompactLockFreeQueueTests : FifoWorkQueueContractTests
{
    protected override IWorkQueue CreateQueue() => new LockFreeQueue<CompactHeadAndTail>(initialSegmentLength: 8);
}

public sealed class LockFreeWorkQueueTests : FifoWorkQueueContractTests
{
    protected override IWorkQueue CreateQueue() => new LockFreeWorkQueue();

    [Fact]
    public void EnqueueDequeueInSteadyState_AllocatesNothing()
    {
        var queue = new LockFreeWorkQueue();
        QueuedWorkItem entry = Entry(1);
        for (int i = 0; i < 2_000; i++)
        {
            queue.Enqueue(entry); // grow once, past the first segment
        }

        while (queue.TryDequeue(out _))
        {
        }

        // Three measurements of a million items each; the least must be zero. An allocation per item (or per round)
        // shows in every one; the runtime's own one-off allocations on this thread (a few hundred bytes, seen once
        // in a Debug build under CI's load) show in one at most.
        long least = long.MaxValue;
        for (int attempt = 0; attempt < 3 && least != 0; attempt++)
        {
            long before = GC.GetAllocatedBytesForCurrentThread();
            for (int round = 0; round < 1_000; round++)
            {
                for (int i = 0; i < 1_000; i++)
                {
                    queue.Enqueue(entry);
                }

                for (int i = 0; i < 1_000; i++)
                {
                    queue.TryDequeue(out _);
                }
            }

            least = Math.Min(least, GC.GetAllocatedBytesForCurrentThread() - before);
        }

        Assert.Equal(0, least);
    }
}

public sealed class WorkStealingWorkQueueTests : WorkQueueContractTests
{
    protected override IWorkQueue CreateQueue() => new WorkStealingWorkQueue();

    [Fact]
    public void Enqueue_OnAttachedWorker_RunsTheLastQueuedFirstThenTheOthersInOrder()
    {
        var queue = new WorkStealingWorkQueue();
        var order = Bounded.Result(Task.Factory.StartNew(() =>
        {
            queue.AttachWorker(0);
            for (int i = 0; i < 3; i++)
            {
                queue.Enqueue(Entry(i));
            }

            var ids = new List<int>();
            while (queue.TryDequeue(out QueuedWorkItem item))
            {
                ids.Add(IdOf(item));
            }

            queue.DetachWorker(0);
            return ids;
        }, TaskCreationOptions.LongRunning), "the worker thread");

        Assert.Equal([2, 0, 1], order); // the last from the slot, then the ring, oldest first
    }

    [Fact]
    public void TryDequeue_OnAnotherThread_StealsAWorkersRingOldestFirstThenItsSlot()
    {
        var queue = new WorkStealingWorkQueue();
        using var filled = new ManualResetEventSlim(false);
        using var release = new ManualResetEventSlim(false);
        var worker = Task.Factory.StartNew(() =>
        {
            queue.AttachWorker(0);
            for (int i = 0; i < 3; i++)
            {
                queue.Enqueue(Entry(i));
            }

            filled.Set();
            release.Wait(Bounded.Timeout);
            queue.DetachWorker(0);
        }, TaskCreationOptions.LongRunning);

        Bounded.Wait(filled, "the worker to fill its slot and ring");
        Assert.False(queue.IsEmpty);
        Assert.Equal(3, queue.Count);
        var stolen = new List<int>();
        while (queue.TryDequeue(out QueuedWorkItem item))
        {
            stolen.Add(IdOf(item));
        }

        release.Set();
        Bounded.Wait(worker, "the worker");
        Assert.Equal([0, 1, 2], stolen);
    }

    [Fact]
    public void TryDequeue_WorkerTakesFromTheSharedQueue_MovesABatchWhereSiblingsCanSteal()
    {
        var queue = new WorkStealingWorkQueue();
        for (int i = 0; i < 40; i++)
        {
            queue.Enqueue(Entry(i)); // from outside the pool: the shared queue
        }

        using var took = new ManualResetEventSlim(false);
        using var release = new ManualResetEventSlim(false);
        int first = -1;
        var worker = Task.Factory.StartNew(() =>
        {
            queue.AttachWorker(0);
            Assert.True(queue.TryDequeue(out QueuedWorkItem item));
            first = IdOf(item);
            took.Set();
            release.Wait(Bounded.Timeout);
            queue.DetachWorker(0);
        }, TaskCreationOptions.LongRunning);

        Bounded.Wait(took, "the worker's first dequeue");

        // The worker took item 0 and moved the next 15 into its batch: the count still sees all 39, and a
        // sibling gets the shared queue's rest (16–39, oldest first) and then steals the batch (1–15, oldest first).
        Assert.Equal(0, first);
        Assert.Equal(39, queue.Count);
        var taken = new List<int>();
        while (queue.TryDequeue(out QueuedWorkItem item))
        {
            taken.Add(IdOf(item));
        }

        release.Set();
        Bounded.Wait(worker, "the worker");
        Assert.Equal(Enumerable.Range(16, 24).Concat(Enumerable.Range(1, 15)), taken);
    }

    [Fact]
    public void DetachWorker_WithEntriesLeft_MovesThemToTheSharedQueue()
    {
        var queue = new WorkStealingWorkQueue();
        Bounded.Wait(Task.Factory.StartNew(() =>
        {
            queue.AttachWorker(3);
            queue.Enqueue(Entry(7));
            queue.DetachWorker(3);
        }, TaskCreationOptions.LongRunning), "the worker thread");

        Assert.True(queue.TryDequeue(out QueuedWorkItem item));
        Assert.Equal(7, IdOf(item));
    }

    [Fact]
    public void AttachWorker_SameIndexTwice_ThrowsInvalidOperationException()
    {
        var queue = new WorkStealingWorkQueue();
        Bounded.Wait(Task.Factory.StartNew(() => queue.AttachWorker(0), TaskCreationOptions.LongRunning), "first attach");

        Assert.Throws<InvalidOperationException>(() => queue.AttachWorker(0));
        Assert.Equal("workerIndex", Assert.Throws<ArgumentOutOfRangeException>(() => queue.AttachWorker(-1)).ParamName);
    }
}
