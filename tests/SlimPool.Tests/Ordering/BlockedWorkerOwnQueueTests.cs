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

    [Theory]
    [InlineData(3, IdleWaitKind.SpinThenPark)]
    [InlineData(3, IdleWaitKind.AutoResetEvent)]
    [InlineData(4, IdleWaitKind.SpinThenPark)]
    [InlineData(5, IdleWaitKind.SpinThenPark)]
    public void Queue_ItemsOnTheSlotsOfEveryOtherBlockedWorker_AllStartWhileTheLastWorkerRunsAChain(int workers, IdleWaitKind idleWait)
    {
        // Every sibling is visited in turn: when the sibling-first fair looks shared their round robin with the others,
        // which alternate with them, an odd number of workers left them visiting every other sibling only, and some
        // blocked workers' items never started while the chain ran (an adversarial review: 3 and 5 workers).
        int blockers = workers - 1;
        const int ChainLength = 2_000_000; // a cap, so that a failing run ends
        using SlimThreadPool pool = TestPools.Create(workers, o =>
        {
            o.Queue = WorkQueueKind.WorkStealing;
            o.IdleWait = idleWait;
            o.StarvationTimeout = Timeout.InfiniteTimeSpan;
        });
        using var release = new ManualResetEventSlim();
        using var chainDone = new ManualResetEventSlim();
        using var allDone = new CountdownEvent(workers);
        int blocked = 0;
        int running = 0;
        int started = 0;
        long chainSteps = 0;
        long[] startedAt = [.. Enumerable.Repeat(-1L, blockers)];

        void Step(object? _)
        {
            if (Interlocked.Increment(ref chainSteps) < ChainLength && Volatile.Read(ref started) < blockers)
            {
                pool.Queue<object?>(Step, null, preferLocal: true);
            }
            else
            {
                chainDone.Set();
            }
        }

        // Each blocker waits until every worker runs an item, queues a child on its own slot, and blocks.
        Action Blocker(int id) => () =>
        {
            Interlocked.Increment(ref running);
            Bounded.Until(() => Volatile.Read(ref running) >= workers, "every worker to run an item");
            pool.Queue(() =>
            {
                Volatile.Write(ref startedAt[id], Interlocked.Read(ref chainSteps));
                Interlocked.Increment(ref started);
            });
            Interlocked.Increment(ref blocked);
            Bounded.Wait(release, "the release");
            allDone.Signal();
        };

        // The last worker waits until every blocker queued its child and blocked, then runs a chain on its own slot.
        pool.Queue(() =>
        {
            Interlocked.Increment(ref running);
            Bounded.Until(() => Volatile.Read(ref blocked) >= blockers, "every blocker to block");
            pool.Queue<object?>(Step, null, preferLocal: true);
            allDone.Signal();
        });
        for (int b = 0; b < blockers; b++)
        {
            pool.Queue(Blocker(b));
        }

        Bounded.Wait(chainDone, "the chain");
        long[] seen = [.. startedAt.Select((_, i) => Volatile.Read(ref startedAt[i]))];
        release.Set();
        Bounded.Wait(allDone, "every item");
        long bound = 3L * blockers * 2 * WorkStealingWorkQueue.FairInterval;
        Assert.True(
            seen.All(at => at >= 0 && at <= bound),
            $"the children started at chain steps [{string.Join(", ", seen)}] (-1: not while the chain ran {ChainLength} steps; bound {bound})");
    }
}
