using SlimPool.Queues;
using SlimPool.Tests.Infrastructure;

namespace SlimPool.Tests.Ordering;

/// <summary>
/// With work stealing, an item a worker queues goes to its own slot (its previous one to its ring). If that worker's
/// item then blocks without saying so, what it queued must not wait for it while a sibling keeps finding work of its
/// own (a chain whose steps queue their successors) and so never runs dry and steals: the sibling's fair looks take a
/// sibling's ring's oldest, and a slot whose entry its owner has not taken since the fair look before. The starvation
/// guard cannot help here: items keep completing, and one blocked worker of two is not a majority.
/// </summary>
public sealed class BlockedWorkerOwnQueueTests
{
    public static TheoryData<IdleWaitKind, bool, bool> Cases()
    {
        var cases = new TheoryData<IdleWaitKind, bool, bool>();
        foreach (IdleWaitKind idleWait in new[] { IdleWaitKind.SpinThenPark, IdleWaitKind.AutoResetEvent })
        {
            foreach (bool chainPrefersLocal in new[] { true, false })
            {
                foreach (bool childInRing in new[] { false, true })
                {
                    cases.Add(idleWait, chainPrefersLocal, childInRing);
                }
            }
        }

        return cases;
    }

    [Theory]
    [MemberData(nameof(Cases))]
    public void Queue_ItemOnTheSlotOrRingOfABlockedWorker_StartsWithinFairLooksOfASiblingRunningAChain(
        IdleWaitKind idleWait, bool chainPrefersLocal, bool childInRing)
    {
        const int ChainLength = 2_000_000; // a cap, so that a failing run ends: the chain runs until the child started
        using SlimThreadPool pool = TestPools.Create(2, o =>
        {
            o.Queue = WorkQueueKind.WorkStealing;
            o.IdleWait = idleWait;
            o.StarvationTimeout = Timeout.InfiniteTimeSpan; // it would rescue the child by adding a worker, and hide this
        });
        using var chainOnSibling = new ManualResetEventSlim();
        using var childStarted = new ManualResetEventSlim();
        using var parentDone = new ManualResetEventSlim();
        using var chainDone = new ManualResetEventSlim();
        int parentThread = 0;
        long chainSteps = 0;
        long stepsWhenChildQueued = -1;
        long stepsWhenChildStarted = -1;

        // A chain on the other worker: every step queues its successor (to that worker's slot, or to the shared queue),
        // so that worker always finds work without stealing; it stops once the child ran.
        void Step(object? _)
        {
            if (Environment.CurrentManagedThreadId != Volatile.Read(ref parentThread))
            {
                chainOnSibling.Set();
            }

            if (Interlocked.Increment(ref chainSteps) < ChainLength && !childStarted.IsSet)
            {
                pool.Queue<object?>(Step, null, chainPrefersLocal);
            }
            else
            {
                chainDone.Set();
            }
        }

        pool.Queue(() =>
        {
            Volatile.Write(ref parentThread, Environment.CurrentManagedThreadId);
            pool.Queue<object?>(Step, null, preferLocal: false);
            Bounded.Wait(chainOnSibling, "the chain to run on the other worker");

            // The child goes to this worker's slot; with a second item after it, to its ring. Then this item blocks
            // without a blocking scope until the child ran.
            pool.Queue(() =>
            {
                Volatile.Write(ref stepsWhenChildStarted, Interlocked.Read(ref chainSteps));
                childStarted.Set();
            });
            if (childInRing)
            {
                pool.Queue(static () => { });
            }

            Volatile.Write(ref stepsWhenChildQueued, Interlocked.Read(ref chainSteps));
            Bounded.Wait(childStarted, "the child of the blocked item");
            parentDone.Set();
        });

        Bounded.Wait(parentDone, "the blocked item");
        Bounded.Wait(chainDone, "the chain");
        long bound = 6 * WorkStealingWorkQueue.FairInterval;
        Assert.True(Volatile.Read(ref stepsWhenChildQueued) < ChainLength, "the chain ended before the child was queued: nothing was measured");
        long waited = Volatile.Read(ref stepsWhenChildStarted) - Volatile.Read(ref stepsWhenChildQueued);
        Assert.True(waited <= bound, $"the child on the blocked worker's {(childInRing ? "ring" : "slot")} started {waited} chain steps on its sibling after it was queued (bound {bound})");
    }
}
