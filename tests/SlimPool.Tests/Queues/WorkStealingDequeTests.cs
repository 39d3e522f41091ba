using SlimPool.Queues;
using SlimPool.Tests.Infrastructure;
using static SlimPool.Tests.Queues.WorkQueueContractTests;

namespace SlimPool.Tests.Queues;

public sealed class WorkStealingDequeTests
{
    [Fact]
    public void TryPop_Owner_TakesNewestFirst()
    {
        var deque = new WorkStealingDeque(this, 0);
        for (int i = 0; i < 5; i++)
        {
            deque.Push(Entry(i));
        }

        var popped = new List<int>();
        while (deque.TryPop(out QueuedWorkItem item))
        {
            popped.Add(IdOf(item));
        }

        Assert.Equal([4, 3, 2, 1, 0], popped);
        Assert.True(deque.IsEmpty);
    }

    [Fact]
    public void TrySteal_Thief_TakesOldestFirst()
    {
        var deque = new WorkStealingDeque(this, 0);
        for (int i = 0; i < 5; i++)
        {
            deque.Push(Entry(i));
        }

        var stolen = new List<int>();
        while (deque.TrySteal(out QueuedWorkItem item))
        {
            stolen.Add(IdOf(item));
        }

        Assert.Equal([0, 1, 2, 3, 4], stolen);
        Assert.False(deque.TryPop(out _));
    }

    [Fact]
    public void Push_PastInitialCapacity_GrowsAndKeepsEveryEntry()
    {
        var deque = new WorkStealingDeque(this, 0);
        for (int i = 0; i < 1_000; i++)
        {
            deque.Push(Entry(i));
        }

        Assert.Equal(1_000, deque.Count);
        Assert.True(deque.TrySteal(out QueuedWorkItem oldest));
        Assert.Equal(0, IdOf(oldest));
        Assert.True(deque.TryPop(out QueuedWorkItem newest));
        Assert.Equal(999, IdOf(newest));
    }

    [Fact]
    [Trait("Category", "Stress")]
    public void OwnerPushPopRacingThieves_EachEntryTakenExactlyOnce()
    {
        int total = StressSize.Pick(quick: 200_000, longRun: 20_000_000);
        var deque = new WorkStealingDeque(this, 0);
        var counts = new int[total];
        int taken = 0;
        int ownerDone = 0;

        void Take(in QueuedWorkItem item)
        {
            Interlocked.Increment(ref counts[IdOf(item)]);
            Interlocked.Increment(ref taken);
        }

        var owner = Task.Factory.StartNew(() =>
        {
            for (int i = 0; i < total; i++)
            {
                deque.Push(Entry(i));
                if (i % 3 == 0 && deque.TryPop(out QueuedWorkItem item))
                {
                    Take(item); // contend for the last entries with the thieves
                }
            }

            while (deque.TryPop(out QueuedWorkItem item))
            {
                Take(item);
            }

            Volatile.Write(ref ownerDone, 1);
        }, TaskCreationOptions.LongRunning);
        var thieves = Enumerable.Range(0, 2).Select(_ => Task.Factory.StartNew(() =>
        {
            var stopwatch = System.Diagnostics.Stopwatch.StartNew();
            while (Volatile.Read(ref ownerDone) == 0 && stopwatch.Elapsed < Bounded.Timeout)
            {
                if (deque.TrySteal(out QueuedWorkItem item))
                {
                    Take(item);
                }
            }
        }, TaskCreationOptions.LongRunning));

        Bounded.Wait(Task.WhenAll(thieves.Append(owner)), "owner and thieves");
        Assert.Equal(total, Volatile.Read(ref taken));
        Assert.All(counts, c => Assert.Equal(1, c));
    }

    [Fact]
    public void TrySteal_ThenOwnerFindsItEmpty_StolenEntriesAreNoLongerReferenced()
    {
        var deque = new WorkStealingDeque(this, 0);
        WeakReference[] states = PushTracked(deque, 100);

        var thief = new Thread(() =>
        {
            while (deque.TrySteal(out _))
            {
            }
        });
        thief.Start();
        Assert.True(thief.Join(Bounded.Timeout));
        Assert.False(deque.TryPop(out _)); // the owner runs out of work

        GC.Collect();
        GC.WaitForPendingFinalizers();
        GC.Collect();
        Assert.All(states, state => Assert.False(state.IsAlive, "a stolen entry's state is still referenced by the deque"));
        GC.KeepAlive(deque);
    }

    [Fact]
    public void TryPop_EmptyAfterABurstThatGrewTheArray_GivesTheArrayBack()
    {
        var deque = new WorkStealingDeque(this, 0);
        int initial = deque.Capacity;
        for (int i = 0; i < 100_000; i++)
        {
            deque.Push(Entry(i));
        }

        Assert.True(deque.Capacity >= 100_000);
        while (deque.TryPop(out _))
        {
        }

        Assert.Equal(initial, deque.Capacity);

        // Still a working deque afterwards.
        deque.Push(Entry(7));
        Assert.True(deque.TrySteal(out QueuedWorkItem stolen));
        Assert.Equal(7, IdOf(stolen));
    }

    [Fact]
    public void Push_BurstLikeThePreviousOneBelowTheShrinkLimit_AllocatesNothing()
    {
        var deque = new WorkStealingDeque(this, 0);
        QueuedWorkItem entry = Entry(1);
        const int Burst = 10_000;
        Assert.True(Burst < WorkStealingDeque.ShrinkAbove);

        int first = PushThenPop(deque, entry, Burst); // grows the array
        long before = GC.GetAllocatedBytesForCurrentThread();
        int second = PushThenPop(deque, entry, Burst);
        long allocated = GC.GetAllocatedBytesForCurrentThread() - before;

        Assert.Equal(0, allocated);
        Assert.Equal(Burst, first);
        Assert.Equal(Burst, second);
        Assert.True(deque.Capacity >= Burst);

        static int PushThenPop(WorkStealingDeque deque, QueuedWorkItem entry, int count)
        {
            for (int i = 0; i < count; i++)
            {
                deque.Push(entry);
            }

            int popped = 0;
            while (deque.TryPop(out _))
            {
                popped++;
            }

            return popped;
        }
    }

    [Fact]
    public void TryStealAfterOwnerGrace_LoneEntryItsOwnerLeaves_StealsIt()
    {
        var deque = new WorkStealingDeque(this, 0);
        deque.Push(Entry(5));

        Assert.True(deque.TryStealAfterOwnerGrace(out QueuedWorkItem stolen));
        Assert.Equal(5, IdOf(stolen));
        Assert.True(deque.IsEmpty);
    }

    [Fact]
    public void TryStealIfMoreThanOne_LoneEntry_LeavesItToTheOwner()
    {
        var deque = new WorkStealingDeque(this, 0);
        deque.Push(Entry(1));
        Assert.False(deque.TryStealIfMoreThanOne(out _));
        Assert.Equal(1, deque.Count);

        deque.Push(Entry(2));
        Assert.True(deque.TryStealIfMoreThanOne(out QueuedWorkItem stolen));
        Assert.Equal(1, IdOf(stolen)); // the oldest
        Assert.True(deque.TryPop(out QueuedWorkItem popped));
        Assert.Equal(2, IdOf(popped));
    }

    [Fact]
    public void TryStealAfterOwnerGrace_OwnerRunningAChain_LeavesMostStepsToTheOwnerAndLosesNone()
    {
        // The owner runs a chain: each step pops the lone entry and pushes the next, as a worker does for an item
        // that queues its successor. A thief that grants the grace takes a step only when the owner was away for
        // it; every entry is taken exactly once either way.
        const int Steps = 50_000;
        var deque = new WorkStealingDeque(this, 0);
        var taken = new int[Steps];
        int stolen = 0;
        int declined = 0;
        using var done = new ManualResetEventSlim();
        var thief = new Thread(() =>
        {
            while (!done.IsSet)
            {
                if (deque.TryStealAfterOwnerGrace(out QueuedWorkItem item))
                {
                    Interlocked.Increment(ref taken[IdOf(item)]);
                    stolen++;
                }
                else if (!deque.IsEmpty)
                {
                    declined++;
                }
            }
        });
        thief.Start();

        for (int step = 0; step < Steps; step++)
        {
            deque.Push(Entry(step));
            Thread.SpinWait(4); // the rest of the item that queued its successor: a few hundred nanoseconds
            if (deque.TryPop(out QueuedWorkItem item))
            {
                Interlocked.Increment(ref taken[IdOf(item)]);
            }
        }

        done.Set();
        Assert.True(thief.Join(Bounded.Timeout));
        while (deque.TryPop(out QueuedWorkItem left))
        {
            taken[IdOf(left)]++;
        }

        Assert.All(taken, count => Assert.Equal(1, count));
        Assert.True(stolen < Steps / 10, $"the thief took {stolen} of {Steps} steps (declined {declined} times)");
    }

    // Pushes n entries whose state objects are reachable only through the deque; returns weak references to them.
    [System.Runtime.CompilerServices.MethodImpl(System.Runtime.CompilerServices.MethodImplOptions.NoInlining)]
    private static WeakReference[] PushTracked(WorkStealingDeque deque, int n)
    {
        var states = new WeakReference[n];
        for (int i = 0; i < n; i++)
        {
            object state = new byte[64];
            states[i] = new WeakReference(state);
            deque.Push(new QueuedWorkItem((Action<object?>)(static _ => { }), state, null));
        }

        return states;
    }
}
