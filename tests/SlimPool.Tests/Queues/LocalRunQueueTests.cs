using SlimPool.Queues;
using SlimPool.Tests.Infrastructure;
using static SlimPool.Tests.Queues.WorkQueueContractTests;

namespace SlimPool.Tests.Queues;

/// <summary>A worker's ring: first in first out for its owner, half stolen in one step, half moved out when full.</summary>
public sealed class LocalRunQueueTests
{
    [Fact]
    public void TryPop_AfterPushBack_TakesOldestFirstThenReportsEmpty()
    {
        var ring = new LocalRunQueue();
        var overflow = new LockFreeQueue<PaddedHeadAndTail>();
        for (int i = 0; i < 5; i++)
        {
            Assert.False(ring.PushBack(Entry(i), overflow));
        }

        Assert.Equal(5, ring.Count);
        Assert.Equal([0, 1, 2, 3, 4], PopAll(ring));
        Assert.True(ring.IsEmpty);
        Assert.True(overflow.IsEmpty);
    }

    [Fact]
    public void PushBack_FullRing_MovesItsOlderHalfThenTheItemToTheOverflowInOrder()
    {
        var ring = new LocalRunQueue();
        var overflow = new LockFreeQueue<PaddedHeadAndTail>();
        for (int i = 0; i < LocalRunQueue.Capacity; i++)
        {
            Assert.False(ring.PushBack(Entry(i), overflow));
        }

        Assert.True(ring.PushBack(Entry(LocalRunQueue.Capacity), overflow));

        var moved = new List<int>();
        while (overflow.TryDequeue(out QueuedWorkItem item))
        {
            moved.Add(IdOf(item));
        }

        Assert.Equal(Enumerable.Range(0, LocalRunQueue.OverflowCount).Append(LocalRunQueue.Capacity), moved);
        Assert.Equal(Enumerable.Range(LocalRunQueue.OverflowCount, LocalRunQueue.Capacity - LocalRunQueue.OverflowCount), PopAll(ring));
    }

    [Theory]
    [InlineData(1, 1, 0)]
    [InlineData(2, 1, 0)]
    [InlineData(5, 3, 2)]
    [InlineData(256, 128, 127)]
    public void TryStealHalfInto_TakesHalfRoundedUpAndReturnsTheNewestOfThem(int queued, int taken, int newest)
    {
        var victim = new LocalRunQueue();
        var thief = new LocalRunQueue();
        var overflow = new LockFreeQueue<PaddedHeadAndTail>();
        for (int i = 0; i < queued; i++)
        {
            victim.PushBack(Entry(i), overflow);
        }

        Assert.Equal(taken, victim.TryStealHalfInto(thief, out QueuedWorkItem item));
        Assert.Equal(newest, IdOf(item));
        Assert.Equal(Enumerable.Range(0, taken - 1), PopAll(thief));
        Assert.Equal(Enumerable.Range(taken, queued - taken), PopAll(victim));
        Assert.Equal(0, victim.TryStealHalfInto(thief, out _));
    }

    [Fact]
    public void TryStealHalfInto_ThiefWithAFullRing_TakesOnlyTheOneItReturns()
    {
        var victim = new LocalRunQueue();
        var thief = new LocalRunQueue();
        var overflow = new LockFreeQueue<PaddedHeadAndTail>();
        for (int i = 0; i < LocalRunQueue.Capacity; i++)
        {
            victim.PushBack(Entry(i), overflow);
            thief.PushBack(Entry(1000 + i), overflow);
        }

        Assert.Equal(1, victim.TryStealHalfInto(thief, out QueuedWorkItem item));
        Assert.Equal(0, IdOf(item));
        Assert.Equal(LocalRunQueue.Capacity, thief.Count);
        Assert.True(overflow.IsEmpty);
    }

    [Fact]
    public void TakenEntries_LeaveNoReferenceInTheRing()
    {
        var ring = new LocalRunQueue();
        var thief = new LocalRunQueue();
        var overflow = new LockFreeQueue<PaddedHeadAndTail>();
        WeakReference[] states = PushStatesThenTakeThemAll(ring, thief, overflow);
        GC.Collect();
        GC.WaitForPendingFinalizers();
        Assert.All(states, state => Assert.False(state.IsAlive, "a ring still referenced an entry that was taken"));
    }

    [Fact]
    [Trait("Category", "Stress")]
    public void OwnerPushingAndPoppingWhileThievesStealHalf_EachEntryTakenExactlyOnce()
    {
        int entries = StressSize.Pick(400_000, 4_000_000);
        var victim = new LocalRunQueue();
        var overflow = new LockFreeQueue<PaddedHeadAndTail>();
        var ledger = new int[entries];
        int ownerDone = 0;

        // Two thieves that steal half into rings of their own and run those; one that steals single entries (a thread
        // outside the pool).
        Thread[] thieves = [.. Enumerable.Range(0, 3).Select(t => new Thread(() =>
        {
            var own = new LocalRunQueue();
            while (Volatile.Read(ref ownerDone) == 0 || !victim.IsEmpty)
            {
                if (t < 2 ? victim.TryStealHalfInto(own, out QueuedWorkItem item) > 0 : victim.TryStealOne(out item))
                {
                    Interlocked.Increment(ref ledger[IdOf(item)]);
                }

                while (own.TryPop(out QueuedWorkItem mine))
                {
                    Interlocked.Increment(ref ledger[IdOf(mine)]);
                }
            }
        }))];
        foreach (Thread thief in thieves)
        {
            thief.Start();
        }

        var random = new Random(11);
        for (int next = 0; next < entries;)
        {
            // Bursts of pushes (some fill the ring and overflow), then a few pops.
            for (int burst = random.Next(1, 300); burst > 0 && next < entries; burst--)
            {
                victim.PushBack(Entry(next++), overflow);
            }

            for (int pops = random.Next(0, 200); pops > 0 && victim.TryPop(out QueuedWorkItem own); pops--)
            {
                Interlocked.Increment(ref ledger[IdOf(own)]);
            }
        }

        Volatile.Write(ref ownerDone, 1);
        foreach (Thread thief in thieves)
        {
            Assert.True(thief.Join(Bounded.Timeout), "a thief did not finish");
        }

        while (victim.TryPop(out QueuedWorkItem rest) || overflow.TryDequeue(out rest))
        {
            Interlocked.Increment(ref ledger[IdOf(rest)]);
        }

        TakenOnce.AssertEach(ledger);
    }

    internal static List<int> PopAll(LocalRunQueue ring)
    {
        var ids = new List<int>();
        while (ring.TryPop(out QueuedWorkItem item))
        {
            ids.Add(IdOf(item));
        }

        return ids;
    }

    // Entries with states, taken every way a ring gives one up: the owner's pop, a full ring's overflow, a thief's half
    // (moved and returned) and a single steal.
    [System.Runtime.CompilerServices.MethodImpl(System.Runtime.CompilerServices.MethodImplOptions.NoInlining)]
    private static WeakReference[] PushStatesThenTakeThemAll(LocalRunQueue ring, LocalRunQueue thief, LockFreeQueue<PaddedHeadAndTail> overflow)
    {
        var states = new List<WeakReference>();
        for (int i = 0; i <= LocalRunQueue.Capacity + 8; i++)
        {
            var state = new object();
            states.Add(new WeakReference(state));
            ring.PushBack(new QueuedWorkItem((Action<object?>)(static _ => { }), state, context: null), overflow);
        }

        Assert.True(ring.TryPop(out _));
        Assert.True(ring.TryStealOne(out _));
        Assert.True(ring.TryStealHalfInto(thief, out _) > 1);
        while (ring.TryPop(out _) || thief.TryPop(out _) || overflow.TryDequeue(out _))
        {
        }

        return [.. states];
    }
}
