using SlimPool.Queues;
using SlimPool.Tests.Infrastructure;
using static SlimPool.Tests.Queues.WorkQueueContractTests;

namespace SlimPool.Tests.Queues;

/// <summary>A thief's look at a worker's slot: a failure only when the entry it saw was taken, never when it merely moved.</summary>
public sealed class WorkStealingSlotStealTests
{
    [Theory]
    [Trait("Category", "Stress")]
    [InlineData(false)]
    [InlineData(true)]
    public void TryDequeue_SlotEntryMovedToTheRingDuringTheGrace_FindsItThere(bool thiefIsWorker)
    {
        // Each round: the owner puts B in its slot; a thief looks (ring empty, so it waits the slot's grace); meanwhile
        // the owner queues C, which moves B from the slot to the ring. The thief must not fail while B is queued.
        int rounds = StressSize.Pick(5_000, 50_000);
        var queue = new WorkStealingWorkQueue();
        int start = 0, entered = 0, done = 0, spurious = 0, wrong = 0;
        bool got = false;
        var owner = new Thread(() =>
        {
            queue.AttachWorker(0);
            var random = new Random(5);
            for (int i = 1; i <= rounds; i++)
            {
                queue.Enqueue(Entry(2 * i));     // B, into the slot
                Volatile.Write(ref start, i);
                SpinUntil(ref entered, i);
                Thread.SpinWait(random.Next(0, 250));
                queue.Enqueue(Entry((2 * i) + 1)); // C, into the slot; B to the ring
                SpinUntil(ref done, i);
                var rest = new List<int>();
                while (queue.TryDequeue(out QueuedWorkItem item))
                {
                    rest.Add(IdOf(item));
                }

                if (!Volatile.Read(ref got) && rest.Contains(2 * i))
                {
                    spurious++;
                }

                if (rest.Count + (Volatile.Read(ref got) ? 1 : 0) != 2)
                {
                    wrong++;
                }
            }

            queue.DetachWorker(0);
        });
        var thief = new Thread(() =>
        {
            if (thiefIsWorker)
            {
                queue.AttachWorker(1);
            }

            for (int i = 1; i <= rounds; i++)
            {
                SpinUntil(ref start, i);
                Volatile.Write(ref entered, i);
                Volatile.Write(ref got, queue.TryDequeue(out _));
                Volatile.Write(ref done, i);
            }

            if (thiefIsWorker)
            {
                queue.DetachWorker(1);
            }
        });
        owner.Start();
        thief.Start();
        Assert.True(owner.Join(Bounded.Timeout), "the owner did not finish");
        Assert.True(thief.Join(Bounded.Timeout), "the thief did not finish");
        Assert.Equal(0, wrong);
        Assert.True(spurious == 0, $"in {spurious} of {rounds} rounds the thief failed while the entry it saw in the slot was queued in the ring");
    }

    // A bounded spin: a stuck partner fails the test instead of hanging it.
    private static void SpinUntil(ref int field, int value)
    {
        long deadline = Environment.TickCount64 + (long)Bounded.Timeout.TotalMilliseconds;
        while (Volatile.Read(ref field) != value)
        {
            if (Environment.TickCount64 > deadline)
            {
                throw new TimeoutException("a partner thread did not move on");
            }

            Thread.SpinWait(1);
        }
    }
}
