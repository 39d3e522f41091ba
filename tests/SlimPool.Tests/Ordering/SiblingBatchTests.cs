using SlimPool.Queues;
using SlimPool.Tests.Infrastructure;

namespace SlimPool.Tests.Ordering;

/// <summary>
/// With work stealing, a worker that takes an item from the shared queue takes a batch of the items behind it too. If
/// its item then blocks without saying so, that batch must not wait for it while a sibling keeps finding work in the
/// shared queue (a chain whose steps queue their successors there) and so never steals: the sibling's fair look takes
/// the oldest item from outside, and a sibling's batch holds older ones than the shared queue.
/// </summary>
public sealed class SiblingBatchTests
{
    public static TheoryData<IdleWaitKind> IdleWaits() => new() { IdleWaitKind.SpinThenPark, IdleWaitKind.AutoResetEvent };

    [Theory]
    [MemberData(nameof(IdleWaits))]
    public void Queue_ItemInTheBatchOfABlockedWorker_StartsWithinAFairLookOfASiblingRunningAChain(IdleWaitKind idleWait)
    {
        const int ChainLength = 20_000;
        using SlimThreadPool pool = TestPools.Create(2, o => { o.Queue = WorkQueueKind.WorkStealing; o.IdleWait = idleWait; });
        using var releaseFirst = new ManualResetEventSlim();
        using var releaseSecond = new ManualResetEventSlim();
        using var releaseBlocker = new ManualResetEventSlim();
        using var blockerStarted = new ManualResetEventSlim();
        using var chainDone = new ManualResetEventSlim();
        using var itemStarted = new ManualResetEventSlim();
        using var gatesStarted = new CountdownEvent(2);
        long chainSteps = 0;
        long stepsWhenItemStarted = -1;

        // Both workers held, each by its own gate.
        pool.Queue(() => { gatesStarted.Signal(); releaseFirst.Wait(Bounded.Timeout); });
        pool.Queue(() => { gatesStarted.Signal(); releaseSecond.Wait(Bounded.Timeout); });
        Bounded.Wait(gatesStarted, "both workers to hold a gate");

        // The blocker and the item behind it wait in the shared queue; the worker released first takes the blocker and
        // the item into its batch, then blocks.
        pool.Queue(() => { blockerStarted.Set(); releaseBlocker.Wait(Bounded.Timeout); });
        pool.Queue(() => { Volatile.Write(ref stepsWhenItemStarted, Interlocked.Read(ref chainSteps)); itemStarted.Set(); });
        releaseSecond.Set();
        Bounded.Wait(blockerStarted, "the blocker");
        Assert.False(itemStarted.IsSet, "the item started before the chain: the test did not set up what it means to");

        // A chain whose every step queues its successor to the shared queue: the other worker always finds work there.
        void Step(object? _)
        {
            if (Interlocked.Increment(ref chainSteps) < ChainLength)
            {
                pool.Queue<object?>(Step, null, preferLocal: false);
            }
            else
            {
                chainDone.Set();
            }
        }

        pool.Queue<object?>(Step, null, preferLocal: false);
        releaseFirst.Set();
        Bounded.Wait(chainDone, "the chain");
        releaseBlocker.Set();
        Bounded.Wait(itemStarted, "the item");

        long bound = 2 * WorkStealingWorkQueue.FairInterval;
        long at = Volatile.Read(ref stepsWhenItemStarted);
        Assert.True(at <= bound, $"the item in the blocked worker's batch started after {at} of {ChainLength} chain steps on its sibling (bound {bound})");
    }
}
