using SlimPool.Queues;
using SlimPool.Tests.Infrastructure;
using static SlimPool.Tests.Queues.WorkQueueContractTests;

namespace SlimPool.Tests.Queues;

/// <summary>What a work-stealing worker runs of its own: the slot within its budget, the ring in order, a full ring's overflow.</summary>
public sealed class WorkStealingLocalOrderTests
{
    [Fact]
    public void TryDequeue_ChainInTheSlot_GivesTheRingATurnOnceTheSlotsBudgetIsSpent()
    {
        // Five items queued, then a chain whose every item queues its successor (into the emptied slot). Without the
        // slot's budget the chain would run to its end before the ring's first item.
        const int Ring = 5;
        const int ChainLength = 100;
        List<string> order = OnWorker(queue =>
        {
            for (int i = 0; i < Ring; i++)
            {
                queue.Enqueue(Entry(i));
            }

            queue.Enqueue(Entry(100)); // the chain's first item, in the slot; the ring holds 0..4
            var ran = new List<string>();
            while (queue.TryDequeue(out QueuedWorkItem item))
            {
                int id = IdOf(item);
                ran.Add(id >= 100 ? $"c{id - 100}" : $"r{id}");
                if (id >= 100 && id < 100 + ChainLength - 1)
                {
                    queue.Enqueue(Entry(id + 1));
                }
            }

            return ran;
        });

        for (int i = 0; i < Ring; i++)
        {
            int at = order.IndexOf($"r{i}");
            Assert.True(at >= 0 && at <= (WorkerQueues.SlotBudget + 1) * (i + 1), $"r{i} ran at look {at}: {string.Join(" ", order)}");
        }

        Assert.Equal(Enumerable.Range(0, ChainLength).Select(i => $"c{i}"), order.Where(s => s[0] == 'c'));
        Assert.Equal(Ring + ChainLength, order.Count);
    }

    [Fact]
    public void Enqueue_OnWorkerWithAFullRing_MovesTheOlderHalfToTheSharedQueueInOrder()
    {
        // Item k displaces item k-1 from the slot into the ring; the ring fills at 256 entries (0..255), and item 257
        // displacing 256 moves 0..127 and then 256 to the shared queue. A thread outside the pool then takes the shared
        // queue first, then steals the ring oldest first, then the slot.
        const int Pushed = 300;
        var queue = new WorkStealingWorkQueue();
        using var filled = new ManualResetEventSlim(false);
        using var release = new ManualResetEventSlim(false);
        var worker = Task.Factory.StartNew(() =>
        {
            queue.AttachWorker(0);
            for (int i = 0; i < Pushed; i++)
            {
                queue.Enqueue(Entry(i));
            }

            filled.Set();
            release.Wait(Bounded.Timeout);
            queue.DetachWorker(0);
        }, TaskCreationOptions.LongRunning);

        Bounded.Wait(filled, "the worker to fill its ring");
        Assert.Equal(Pushed, queue.Count);
        var taken = new List<int>();
        while (queue.TryDequeue(out QueuedWorkItem item))
        {
            taken.Add(IdOf(item));
        }

        release.Set();
        Bounded.Wait(worker, "the worker");
        int half = LocalRunQueue.OverflowCount;
        int full = LocalRunQueue.Capacity;
        IEnumerable<int> expected = Enumerable.Range(0, half).Append(full)
            .Concat(Enumerable.Range(half, full - half))
            .Concat(Enumerable.Range(full + 1, Pushed - full - 2))
            .Append(Pushed - 1);
        Assert.Equal(expected, taken);
    }

    private static List<string> OnWorker(Func<WorkStealingWorkQueue, List<string>> body)
    {
        var queue = new WorkStealingWorkQueue();
        return Bounded.Result(Task.Factory.StartNew(() =>
        {
            queue.AttachWorker(0);
            try
            {
                return body(queue);
            }
            finally
            {
                queue.DetachWorker(0);
            }
        }, TaskCreationOptions.LongRunning), "the worker thread");
    }
}
