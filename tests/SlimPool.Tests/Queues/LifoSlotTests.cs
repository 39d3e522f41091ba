using SlimPool.Queues;
using SlimPool.Tests.Infrastructure;
using static SlimPool.Tests.Queues.WorkQueueContractTests;

namespace SlimPool.Tests.Queues;

/// <summary>A worker's LIFO slot: one entry, taken once by its owner or a thief, never torn, never kept alive.</summary>
public sealed class LifoSlotTests
{
    [Fact]
    public void TryTake_AfterPut_ReturnsTheEntryOnce()
    {
        var slot = new LifoSlot();
        Assert.False(slot.TryTake(out _));
        slot.Put(Entry(4));
        Assert.False(slot.IsEmpty);
        Assert.True(slot.TryTake(out QueuedWorkItem item));
        Assert.Equal(4, IdOf(item));
        Assert.True(slot.IsEmpty);
        Assert.False(slot.TryTake(out _));
        Assert.False(slot.TrySteal(out _));
    }

    [Fact]
    public void TrySteal_TakesTheEntryAndTheOwnersTakeFails()
    {
        var slot = new LifoSlot();
        slot.Put(Entry(1));
        Assert.True(slot.TrySteal(out QueuedWorkItem item));
        Assert.Equal(1, IdOf(item));
        Assert.False(slot.TrySteal(out _));
        Assert.False(slot.TryTake(out _));
    }

    [Fact]
    public void Put_AfterAThiefTookAnEntryWithStateAndContext_ReturnsExactlyTheNewEntry()
    {
        // A thief cannot clear the cell; the owner must, or an entry without state or context would come back with
        // the stolen one's (a cell's write stores only the references that are set).
        var slot = new LifoSlot();
        var stolenState = new object();
        ExecutionContext context = ExecutionContext.Capture()!;
        slot.Put(new QueuedWorkItem((Action<object?>)(static _ => { }), stolenState, context));
        Assert.True(slot.TrySteal(out _));

        slot.TryTake(out _); // the owner finds it gone
        Action plain = static () => { };
        slot.Put(new QueuedWorkItem(plain, null, null));
        Assert.True(slot.TryTake(out QueuedWorkItem item));
        Assert.Same(plain, item.StoredCallback);
        Assert.Null(item.StoredState);
        Assert.Null(item.Context);
    }

    [Fact]
    public void TryTake_AfterAThiefTookTheEntry_TheSlotNoLongerReferencesIt()
    {
        var slot = new LifoSlot();
        WeakReference state = PutThenSteal(slot);
        slot.TryTake(out _); // the owner's next look, when it runs out of work
        GC.Collect();
        GC.WaitForPendingFinalizers();
        Assert.False(state.IsAlive, "the slot still referenced an entry a thief took");
    }

    [Fact]
    public void TryStealAfterGrace_OwnerIdle_TakesTheEntry()
    {
        var slot = new LifoSlot();
        slot.Put(Entry(2));
        Assert.True(slot.TryStealAfterGrace(out QueuedWorkItem item));
        Assert.Equal(2, IdOf(item));
        Assert.False(slot.TryStealAfterGrace(out _));
    }

    [Fact]
    [Trait("Category", "Stress")]
    public void OwnerPuttingAndTakingWhileThievesSteal_EachEntryTakenExactlyOnce()
    {
        int entries = StressSize.Pick(300_000, 3_000_000);
        var slot = new LifoSlot();
        var ledger = new int[entries];
        int ownerDone = 0;
        Thread[] thieves = [.. Enumerable.Range(0, 2).Select(_ => new Thread(() =>
        {
            while (Volatile.Read(ref ownerDone) == 0 || !slot.IsEmpty)
            {
                if (slot.TrySteal(out QueuedWorkItem item))
                {
                    Interlocked.Increment(ref ledger[IdOf(item)]);
                }
            }
        }))];
        foreach (Thread thief in thieves)
        {
            thief.Start();
        }

        var random = new Random(5);
        for (int next = 0; next < entries; next++)
        {
            // The owner's push: the previous entry comes out (or a thief had it), the new one goes in.
            if (slot.TryTake(out QueuedWorkItem previous))
            {
                Interlocked.Increment(ref ledger[IdOf(previous)]);
            }

            slot.Put(Entry(next));
            if (random.Next(3) == 0 && slot.TryTake(out QueuedWorkItem own))
            {
                Interlocked.Increment(ref ledger[IdOf(own)]);
            }
        }

        Volatile.Write(ref ownerDone, 1);
        foreach (Thread thief in thieves)
        {
            Assert.True(thief.Join(Bounded.Timeout), "a thief did not finish");
        }

        if (slot.TryTake(out QueuedWorkItem rest))
        {
            Interlocked.Increment(ref ledger[IdOf(rest)]);
        }

        TakenOnce.AssertEach(ledger);
    }

    [System.Runtime.CompilerServices.MethodImpl(System.Runtime.CompilerServices.MethodImplOptions.NoInlining)]
    private static WeakReference PutThenSteal(LifoSlot slot)
    {
        var state = new object();
        slot.Put(new QueuedWorkItem((Action<object?>)(static _ => { }), state, context: null));
        Assert.True(slot.TrySteal(out _));
        return new WeakReference(state);
    }
}
