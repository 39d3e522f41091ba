using SlimPool.Queues;
using SlimPool.Tests.Infrastructure;

namespace SlimPool.Tests.Queues;

/// <summary>
/// <see cref="LockFreeQueue{TPositions}.TryRetire"/>, which a group uses to drop its queue when a turn finds it empty: a retire
/// succeeds only on an empty queue, and an entry is either in the queue or refused, never lost in a retired one.
/// </summary>
public sealed class LockFreeRetireTests
{
    private static readonly Action<object?> s_noop = static _ => { };

    [Fact]
    public void TryRetire_EmptyQueue_RetiresAndRefusesEveryLaterEntry()
    {
        var queue = new LockFreeQueue<CompactHeadAndTail>(16);
        Assert.True(queue.TryRetire());
        Assert.True(queue.TryRetire());
        Assert.False(queue.TryEnqueue(new QueuedWorkItem(s_noop, null, null)));
        Assert.True(queue.IsEmpty);
        Assert.False(queue.TryDequeue(out _));
    }

    [Fact]
    public void TryRetire_QueueHoldingAnEntry_FailsAndTheQueueStaysUsable()
    {
        var queue = new LockFreeQueue<CompactHeadAndTail>(16);
        Assert.True(queue.TryEnqueue(new QueuedWorkItem(s_noop, 1, null)));
        Assert.False(queue.TryRetire());
        for (int i = 2; i <= 40; i++)
        {
            Assert.True(queue.TryEnqueue(new QueuedWorkItem(s_noop, i, null)));
        }

        for (int i = 1; i <= 40; i++)
        {
            Assert.True(queue.TryDequeue(out QueuedWorkItem item));
            Assert.Equal(i, item.UserState);
        }

        Assert.True(queue.TryRetire());
    }

    [Fact]
    public void TryRetire_RacingProducersAndAConsumer_EveryAcceptedEntryIsDequeuedOnceAndNoRefusedOne()
    {
        const int Rounds = 2_000;
        const int Producers = 2;
        const int PerProducer = 8;
        for (int round = 0; round < Rounds; round++)
        {
            var queue = new LockFreeQueue<CompactHeadAndTail>(4);
            var accepted = new bool[Producers * PerProducer];
            var taken = new int[Producers * PerProducer];
            using var start = new Barrier(Producers + 1);
            bool retired = false;
            var threads = new Thread[Producers + 1];
            for (int p = 0; p < Producers; p++)
            {
                int producer = p;
                threads[p] = new Thread(() =>
                {
                    start.SignalAndWait(Bounded.Timeout);
                    for (int i = 0; i < PerProducer; i++)
                    {
                        int id = (producer * PerProducer) + i;
                        accepted[id] = queue.TryEnqueue(new QueuedWorkItem(s_noop, id, null));
                    }
                });
            }

            threads[Producers] = new Thread(() =>
            {
                start.SignalAndWait(Bounded.Timeout);
                while (!retired)
                {
                    while (queue.TryDequeue(out QueuedWorkItem item))
                    {
                        taken[(int)item.UserState!]++;
                    }

                    retired = queue.TryRetire();
                }
            });
            foreach (Thread thread in threads)
            {
                thread.IsBackground = true;
                thread.Start();
            }

            foreach (Thread thread in threads)
            {
                Assert.True(thread.Join(Bounded.Timeout), "a thread of the race did not finish in time");
            }

            for (int id = 0; id < accepted.Length; id++)
            {
                Assert.True(taken[id] == (accepted[id] ? 1 : 0), $"round {round}: entry {id} accepted {accepted[id]} but dequeued {taken[id]} times");
            }

            Assert.True(queue.IsEmpty);
        }
    }
}
