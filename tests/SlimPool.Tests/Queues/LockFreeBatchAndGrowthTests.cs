using SlimPool.Queues;
using SlimPool.Tests.Infrastructure;
using static SlimPool.Tests.Queues.WorkQueueContractTests;

namespace SlimPool.Tests.Queues;

/// <summary>
/// The two things <see cref="LockFreeQueue{TPositions}"/> does for a backlog: a consumer takes a batch of published entries
/// with one compare-and-swap (what the work-stealing queue's refill uses), and a full ring grows by enough that a
/// burst like the last one fits in the ring it left behind.
/// </summary>
public sealed class LockFreeBatchAndGrowthTests
{
    [Fact]
    public void TryDequeueBatch_PublishedEntries_TakesThemOldestFirstUpToTheBufferLength()
    {
        var queue = new LockFreeQueue<PaddedHeadAndTail>();
        for (int i = 0; i < 20; i++)
        {
            queue.Enqueue(Entry(i));
        }

        var buffer = new QueuedWorkItem[15];
        int taken = queue.TryDequeueBatch(buffer);

        Assert.Equal(15, taken);
        Assert.Equal(Enumerable.Range(0, 15), buffer.Select(item => IdOf(item)));
        Assert.Equal(5, queue.Count);
        Assert.Equal(5, queue.TryDequeueBatch(buffer));
        Assert.Equal(Enumerable.Range(15, 5), buffer.Take(5).Select(item => IdOf(item)));
        Assert.True(queue.IsEmpty);
    }

    [Fact]
    public void TryDequeueBatch_EmptyQueue_ReturnsZeroAndTakesNothingLater()
    {
        var queue = new LockFreeQueue<PaddedHeadAndTail>();
        var buffer = new QueuedWorkItem[8];

        Assert.Equal(0, queue.TryDequeueBatch(buffer));

        queue.Enqueue(Entry(7));
        Assert.Equal(1, queue.TryDequeueBatch(buffer));
        Assert.Equal(7, IdOf(buffer[0]));
        Assert.Equal(0, queue.TryDequeueBatch(buffer));
    }

    [Fact]
    public void TryDequeueBatch_RingsReusedLapAfterLap_NeverReturnsAnEntryTwice()
    {
        // Batches that wrap around the ring: each cell's sequence must say "this lap" for the batch to take it.
        var queue = new LockFreeQueue<PaddedHeadAndTail>();
        var buffer = new QueuedWorkItem[15];
        int next = 0;
        int expected = 0;
        for (int round = 0; round < 500; round++)
        {
            for (int i = 0; i < 37; i++)
            {
                queue.Enqueue(Entry(next++));
            }

            int taken;
            while ((taken = queue.TryDequeueBatch(buffer)) != 0)
            {
                for (int i = 0; i < taken; i++)
                {
                    Assert.Equal(expected++, IdOf(buffer[i]));
                }
            }
        }

        Assert.Equal(next, expected);
        Assert.True(queue.IsEmpty);
    }

    [Theory]
    [InlineData(2, 1)]
    [InlineData(3, 3)]
    [Trait("Category", "Stress")]
    public void ConcurrentBatchAndSingleConsumers_EachEntryDequeuedExactlyOnce(int producers, int batchConsumers)
    {
        int perProducer = StressSize.Pick(quick: 100_000, longRun: 5_000_000) / producers;
        int total = perProducer * producers;
        var queue = new LockFreeQueue<PaddedHeadAndTail>();
        var counts = new int[total];
        int dequeued = 0;

        var producerTasks = Enumerable.Range(0, producers).Select(p => Task.Factory.StartNew(() =>
        {
            for (int i = 0; i < perProducer; i++)
            {
                queue.Enqueue(Entry((p * perProducer) + i));
            }
        }, TaskCreationOptions.LongRunning));

        // Batch consumers and one single-item consumer race on the same head, across ring growths.
        var consumerTasks = Enumerable.Range(0, batchConsumers + 1).Select(c => Task.Factory.StartNew(() =>
        {
            var buffer = new QueuedWorkItem[c == 0 ? 1 : 15];
            var stopwatch = System.Diagnostics.Stopwatch.StartNew();
            while (Volatile.Read(ref dequeued) < total && stopwatch.Elapsed < Bounded.Timeout)
            {
                int taken = c == 0 ? (queue.TryDequeue(out buffer[0]) ? 1 : 0) : queue.TryDequeueBatch(buffer);
                for (int i = 0; i < taken; i++)
                {
                    Interlocked.Increment(ref counts[IdOf(buffer[i])]);
                }

                Interlocked.Add(ref dequeued, taken);
            }
        }, TaskCreationOptions.LongRunning));

        Bounded.Wait(Task.WhenAll(producerTasks.Concat(consumerTasks)), "producers and consumers");
        Assert.Equal(total, Volatile.Read(ref dequeued));
        Assert.All(counts, c => Assert.Equal(1, c));
        Assert.True(queue.IsEmpty);
    }

    [Theory]
    [InlineData(1024, 1024, 4096)] // four times the full ring
    [InlineData(4096, 5120, 16384)] // older rings not drained yet: still four times
    [InlineData(1024, 3000, 8192)] // twice the backlog when that is more, rounded up to a power of two
    [InlineData(1 << 19, 1 << 19, 1 << 20)] // capped
    [InlineData(1 << 20, 3 << 20, 1 << 20)]
    public void NextSegmentLength_FullRingAndBacklog_FourTimesTheRingOrTwiceTheBacklogCapped(int full, long backlog, int expected)
    {
        Assert.Equal(expected, LockFreeQueue<PaddedHeadAndTail>.NextSegmentLength(full, backlog));
    }

    [Fact]
    public void Enqueue_BurstLikeThePreviousOne_AllocatesNothing()
    {
        // 100,000 entries fill rings of 1 Ki, 4 Ki, 16 Ki and 64 Ki (85 Ki in all) and land in a 256 Ki ring, which
        // the next burst of 100,000 reuses. Doubling would have left a 64 Ki ring and grown again.
        const int Burst = 100_000;
        var queue = new LockFreeQueue<PaddedHeadAndTail>();
        QueuedWorkItem entry = Entry(1);
        for (int i = 0; i < Burst; i++)
        {
            queue.Enqueue(entry);
        }

        while (queue.TryDequeue(out _))
        {
        }

        long before = GC.GetAllocatedBytesForCurrentThread();
        for (int i = 0; i < Burst; i++)
        {
            queue.Enqueue(entry);
        }

        long allocated = GC.GetAllocatedBytesForCurrentThread() - before;
        Assert.Equal(Burst, queue.Count);
        Assert.Equal(0, allocated);
    }
}
