using SlimPool.Queues;
using SlimPool.Tests.Infrastructure;
using static SlimPool.Tests.Queues.WorkQueueContractTests;

namespace SlimPool.Tests.Queues;

/// <summary>
/// A ring reads its state and context regions only once some producer wrote a state or a context into it
/// (<see cref="LockFreeSegment{TPositions}"/>'s remarks): the first such entry, racing plain ones and consumers, must come
/// back with its state and context, and no plain entry with another's.
/// </summary>
public sealed class LockFreeStateRegionTests
{
    [Theory]
    [InlineData(false)]
    [InlineData(true)]
    public void TryDequeue_FirstEntryWithAStateAfterPlainOnes_ComesBackWithItsStateAndContext(bool inABatch)
    {
        var queue = new LockFreeQueue<PaddedHeadAndTail>(initialSegmentLength: 8);
        ExecutionContext context = ExecutionContext.Capture()!;
        for (int i = 0; i < 20; i++)
        {
            queue.Enqueue(Entry(i)); // laps of a ring that holds no state yet
            Assert.True(queue.TryDequeue(out QueuedWorkItem plain));
            Assert.Null(plain.StoredState);
        }

        QueuedWorkItem[] entries = [new QueuedWorkItem(new IdBox(20), "state", context), Entry(21)];
        if (inABatch)
        {
            Assert.True(LockFreeBatchEnqueueTests.TryEnqueueBatch(queue, entries));
        }
        else
        {
            queue.Enqueue(entries[0]);
            queue.Enqueue(entries[1]);
        }

        Assert.True(queue.TryDequeue(out QueuedWorkItem taken));
        Assert.Equal("state", taken.StoredState);
        Assert.Same(context, taken.Context);
        Assert.True(queue.TryDequeue(out taken));
        Assert.Null(taken.StoredState);
        Assert.Null(taken.Context);
    }

    [Theory]
    [InlineData(0)]
    [InlineData(1)]
    [InlineData(2)]
    public void TryDequeue_FirstExtraAContextAloneAfterPlainLaps_ComesBackWithItsContext(int how)
    {
        var queue = new LockFreeQueue<PaddedHeadAndTail>(initialSegmentLength: 8);
        for (int i = 0; i < 20; i++)
        {
            queue.Enqueue(Entry(i));
            Assert.True(queue.TryDequeue(out _));
        }

        ExecutionContext context = ExecutionContext.Capture()!;
        var entry = new QueuedWorkItem(new IdBox(20), state: null, context);
        switch (how)
        {
            case 0:
                queue.Enqueue(entry);
                break;
            case 1:
                Assert.True(LockFreeBatchEnqueueTests.TryEnqueueBatch(queue, [entry]));
                break;
            default:
                IWorkItem[] items = [new IdBox(20)];
                var batch = new WorkItemBatch(items, context);
                Assert.Equal(1, queue.EnqueueBatchUntilRetired(ref batch, 0, 1));
                break;
        }

        Assert.True(queue.TryDequeue(out QueuedWorkItem taken));
        Assert.Null(taken.StoredState);
        Assert.Same(context, taken.Context);
    }

    [Fact]
    public void Enqueue_PlainAndStateProducersRacingConsumers_EachEntryComesBackWithExactlyItsOwnStateAndContext()
    {
        // Producer 0 queues plain entries only; producer 1 plain ones first, then entries with a state (every other one
        // with a context too), singly and in batches, so each new ring's first state lands while consumers take plain
        // entries from it. The state is the entry's own id, boxed once, and checked by reference.
        int perProducer = StressSize.Pick(quick: 20_000, longRun: 400_000);
        var queue = new LockFreeQueue<PaddedHeadAndTail>(initialSegmentLength: 8);
        ExecutionContext context = ExecutionContext.Capture()!;
        int total = 2 * perProducer;
        var states = new object?[total];
        var contexts = new ExecutionContext?[total];
        var seen = new int[total];
        int wrong = 0;
        int taken = 0;
        using var deadline = new CancellationTokenSource(Bounded.Timeout);

        QueuedWorkItem EntryFor(int id)
        {
            bool extras = id >= perProducer && id % 3 != 0 && id - perProducer > perProducer / 10;
            states[id] = extras ? new IdBox(id) : null;
            contexts[id] = extras && id % 2 == 0 ? context : null;
            return new QueuedWorkItem(new IdBox(id), states[id], contexts[id]);
        }

        var threads = new List<Thread>
        {
            new(() =>
            {
                for (int id = 0; id < perProducer; id++)
                {
                    queue.Enqueue(EntryFor(id));
                }
            }),
            new(() =>
            {
                var random = new Random(1);
                int id = perProducer;
                while (id < total)
                {
                    int length = Math.Min(total - id, random.Next(1, 12));
                    QueuedWorkItem[] batch = [.. Enumerable.Range(id, length).Select(EntryFor)];
                    if (random.Next(2) == 0 || !LockFreeBatchEnqueueTests.TryEnqueueBatch(queue, batch))
                    {
                        foreach (QueuedWorkItem entry in batch)
                        {
                            queue.Enqueue(entry);
                        }
                    }

                    id += length;
                }
            }),
        };

        for (int c = 0; c < 2; c++)
        {
            bool batches = c == 1;
            threads.Add(new Thread(() =>
            {
                var buffer = new QueuedWorkItem[15];
                var spinner = new SpinWait();
                while (Volatile.Read(ref taken) < total && !deadline.IsCancellationRequested)
                {
                    int count = batches ? queue.TryDequeueBatch(buffer) : queue.TryDequeue(out buffer[0]) ? 1 : 0;
                    if (count == 0)
                    {
                        spinner.SpinOnce(sleep1Threshold: -1);
                        continue;
                    }

                    for (int i = 0; i < count; i++)
                    {
                        if (buffer[i].StoredCallback is not IdBox)
                        {
                            Interlocked.Increment(ref wrong); // not an entry any producer queued
                            continue;
                        }

                        int id = IdOf(buffer[i]);
                        Interlocked.Increment(ref seen[id]);
                        if (!ReferenceEquals(buffer[i].StoredState, Volatile.Read(ref states[id])) || !ReferenceEquals(buffer[i].Context, contexts[id]))
                        {
                            Interlocked.Increment(ref wrong);
                        }
                    }

                    Interlocked.Add(ref taken, count);
                }
            }));
        }

        threads.ForEach(thread =>
        {
            thread.IsBackground = true;
            thread.Start();
        });
        threads.ForEach(thread => Assert.True(thread.Join(Bounded.Timeout), "a producer or consumer did not finish"));

        Assert.Equal(total, taken);
        Assert.All(seen, count => Assert.Equal(1, count));
        Assert.Equal(0, wrong);
    }
}
