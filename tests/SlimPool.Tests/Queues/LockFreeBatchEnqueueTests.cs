using SlimPool.Queues;
using SlimPool.Tests.Infrastructure;
using static SlimPool.Tests.Queues.WorkQueueContractTests;

namespace SlimPool.Tests.Queues;

/// <summary>
/// <see cref="LockFreeQueue{TPositions}.EnqueueBatchUntilRetired"/>: a producer claims as many free cells as its batch fills with one
/// compare-and-swap per ring, and the queue keeps its contract (order, exactly once) across growth and against
/// concurrent single and batch producers and consumers.
/// </summary>
public sealed class LockFreeBatchEnqueueTests
{
    // The whole batch went in (false: the queue was retired first).
    internal static bool TryEnqueueBatch(LockFreeQueue<PaddedHeadAndTail> queue, ReadOnlySpan<QueuedWorkItem> items)
    {
        var entries = new EntryBatch(items);
        return queue.EnqueueBatchUntilRetired(ref entries, 0, items.Length) == items.Length;
    }

    [Fact]
    public void TryEnqueueBatch_BatchLargerThanTheRing_GrowsAndKeepsTheOrder()
    {
        var queue = new LockFreeQueue<PaddedHeadAndTail>(initialSegmentLength: 8);
        queue.Enqueue(Entry(0));
        QueuedWorkItem[] batch = [.. Enumerable.Range(1, 100).Select(Entry)];

        Assert.True(TryEnqueueBatch(queue, batch));

        Assert.Equal(101, queue.Count);
        var taken = new List<int>();
        while (queue.TryDequeue(out QueuedWorkItem item))
        {
            taken.Add(IdOf(item));
        }

        Assert.Equal(Enumerable.Range(0, 101), taken);
    }

    [Fact]
    public void TryEnqueueBatch_RingWrapsLapAfterLap_TakesEachEntryOnceInOrder()
    {
        // Batches that wrap around a small ring whose consumers keep up: every cell must be free for this lap before a
        // batch claims it, and the ring must not grow (no cell is skipped or overwritten).
        var queue = new LockFreeQueue<PaddedHeadAndTail>(initialSegmentLength: 16);
        int next = 0;
        int expected = 0;
        for (int round = 0; round < 300; round++)
        {
            QueuedWorkItem[] batch = [.. Enumerable.Range(next, 1 + (round % 11)).Select(Entry)];
            next += batch.Length;
            Assert.True(TryEnqueueBatch(queue, batch));
            while (queue.TryDequeue(out QueuedWorkItem item))
            {
                Assert.Equal(expected++, IdOf(item));
            }
        }

        Assert.Equal(next, expected);
    }

    [Fact]
    public void Enqueue_CellsReusedWithAndWithoutStateAndContext_TakeBackExactlyWhatWasQueued()
    {
        // A cell stores the state and the context only when they are set, relying on the take to clear them: an entry
        // without them in a reused cell must not come back with the previous lap's.
        var queue = new LockFreeQueue<PaddedHeadAndTail>(initialSegmentLength: 8);
        ExecutionContext context = ExecutionContext.Capture()!;
        var random = new Random(7);
        for (int round = 0; round < 400; round++)
        {
            int length = random.Next(1, 6);
            QueuedWorkItem[] entries = [.. Enumerable.Range(0, length).Select(i => new QueuedWorkItem(
                new IdBox((round * 10) + i),
                random.Next(2) == 0 ? null : $"state {round}.{i}",
                random.Next(2) == 0 ? null : context))];
            if (round % 2 == 0)
            {
                Assert.True(TryEnqueueBatch(queue, entries));
            }
            else
            {
                foreach (QueuedWorkItem entry in entries)
                {
                    queue.Enqueue(entry);
                }
            }

            foreach (QueuedWorkItem expected in entries)
            {
                Assert.True(queue.TryDequeue(out QueuedWorkItem taken));
                Assert.Same(expected.StoredCallback, taken.StoredCallback);
                Assert.Same(expected.StoredState, taken.StoredState);
                Assert.Same(expected.Context, taken.Context);
            }
        }
    }

    [Theory]
    [InlineData(false)]
    [InlineData(true)]
    public void EnqueueBatch_WorkItemAndStateBatchesWrappingTheRing_TakeBackEachEntryAsQueued(bool withContext)
    {
        // The pool's own batches copy their references region by region, in two runs where the ring wraps, and write
        // a state or a context only when set: every entry must come back with exactly its callback, state and context,
        // in cells that single entries with states and contexts used before.
        var queue = new LockFreeQueue<PaddedHeadAndTail>(initialSegmentLength: 8);
        ExecutionContext? context = withContext ? ExecutionContext.Capture() : null;
        ExecutionContext other = ExecutionContext.Capture()!.CreateCopy();
        Action<object?> callback = static _ => { };
        for (int round = 0; round < 200; round++)
        {
            queue.Enqueue(new QueuedWorkItem(new IdBox(-1), $"single {round}", other)); // leaves every region written
            Assert.True(queue.TryDequeue(out _));

            int length = 1 + (round % 7);
            var expected = new List<QueuedWorkItem>();
            if (round % 2 == 0)
            {
                IWorkItem[] items = [.. Enumerable.Range(0, length).Select(i => (IWorkItem)new IdBox((round * 10) + i))];
                var batch = new WorkItemBatch(items, context);
                Assert.Equal(length, queue.EnqueueBatchUntilRetired(ref batch, 0, length));
                expected.AddRange(items.Select(item => new QueuedWorkItem(item, null, context)));
            }
            else
            {
                object?[] states = [.. Enumerable.Range(0, length).Select(i => i % 3 == 0 ? null : (object)$"state {round}.{i}")];
                var batch = new StateBatch(callback, states, context);
                Assert.Equal(length, queue.EnqueueBatchUntilRetired(ref batch, 0, length));
                expected.AddRange(states.Select(state => new QueuedWorkItem(callback, state, context)));
            }

            foreach (QueuedWorkItem entry in expected)
            {
                Assert.True(queue.TryDequeue(out QueuedWorkItem taken));
                Assert.Same(entry.StoredCallback, taken.StoredCallback);
                Assert.Same(entry.StoredState, taken.StoredState);
                Assert.Same(entry.Context, taken.Context);
            }

            Assert.True(queue.IsEmpty);
        }
    }

    [Fact]
    public void TryEnqueueBatch_RetiredQueue_ReturnsFalseAndAddsNothing()
    {
        var queue = new LockFreeQueue<PaddedHeadAndTail>(initialSegmentLength: 8);
        Assert.True(queue.TryRetire());

        Assert.False(TryEnqueueBatch(queue, [Entry(1), Entry(2)]));
        Assert.True(queue.IsEmpty);
    }

    [Fact]
    public void TryEnqueueBatch_ConcurrentBatchAndSingleProducersAndConsumers_EveryEntryExactlyOnceInEachProducersOrder()
    {
        const int Producers = 3;
        int perProducer = StressSize.Pick(quick: 20_000, longRun: 400_000);
        var queue = new LockFreeQueue<PaddedHeadAndTail>(initialSegmentLength: 8);
        int total = Producers * perProducer;
        var seen = new int[total];
        var lastPerProducer = new int[Producers * 2]; // [consumer * Producers + producer]: the last id a consumer took
        Array.Fill(lastPerProducer, -1);
        int taken = 0;
        int refused = 0;
        using var deadline = new CancellationTokenSource(Bounded.Timeout);

        var threads = new List<Thread>();
        for (int p = 0; p < Producers; p++)
        {
            int producer = p;
            threads.Add(new Thread(() =>
            {
                int id = producer * perProducer;
                int end = id + perProducer;
                var random = new Random(producer);
                while (id < end)
                {
                    if (producer == 0)
                    {
                        queue.Enqueue(Entry(id++)); // one single producer beside the batch ones
                        continue;
                    }

                    int length = Math.Min(end - id, random.Next(1, 40));
                    QueuedWorkItem[] batch = [.. Enumerable.Range(id, length).Select(Entry)];
                    if (!TryEnqueueBatch(queue, batch))
                    {
                        Interlocked.Increment(ref refused);
                    }

                    id += length;
                }
            }));
        }

        for (int c = 0; c < 2; c++)
        {
            int consumer = c;
            threads.Add(new Thread(() =>
            {
                var spinner = new SpinWait();
                while (Volatile.Read(ref taken) < total && !deadline.IsCancellationRequested)
                {
                    if (!queue.TryDequeue(out QueuedWorkItem item))
                    {
                        spinner.SpinOnce(sleep1Threshold: -1);
                        continue;
                    }

                    int id = IdOf(item);
                    Interlocked.Increment(ref seen[id]);
                    int producer = id / perProducer;
                    // One producer's entries are claimed in order, so one consumer takes them in increasing order.
                    if (id <= lastPerProducer[(consumer * Producers) + producer])
                    {
                        Interlocked.Increment(ref seen[0]); // recorded as a duplicate: fails the check below
                    }

                    lastPerProducer[(consumer * Producers) + producer] = id;
                    Interlocked.Increment(ref taken);
                }
            }));
        }

        threads.ForEach(thread =>
        {
            thread.IsBackground = true;
            thread.Start();
        });
        foreach (Thread thread in threads)
        {
            Assert.True(thread.Join(Bounded.Timeout), "a producer or consumer did not finish in time");
        }

        Assert.Equal(0, refused);
        Assert.All(seen, count => Assert.Equal(1, count));
        Assert.True(queue.IsEmpty);
    }
}
