using System.Diagnostics;
using SlimPool.Queues;
using SlimPool.Scheduling;
using SlimPool.Tests.Infrastructure;

namespace SlimPool.Tests.Priorities;

/// <summary>
/// Once a pool stops, its drain's workers and the shutdown's looks take Low items straight from their lane, so a Low
/// ticket that lands later finds nothing of its own: there are more Low tickets queued than Low items. A Low ticket
/// weighs the queue's length against the Low items to decide whether other work waits (aging); counted as other work,
/// the surplus tickets kept deferring each other, spinning a worker, until the oldest Low item had waited its whole
/// <see cref="SlimThreadPoolOptions.LowPriorityMaxDelay"/> (found by an adversarial review).
/// </summary>
public sealed class LowTicketDrainTests
{
    private static readonly TimeSpan LongAging = TimeSpan.FromSeconds(30);

    [Theory]
    [MemberData(nameof(TestPools.QueueAndIdleWaits), MemberType = typeof(TestPools))]
    public void ShutdownAsync_DrainWhileALowItemIsTakenBeforeItsTicketLands_TheNextLowItemRunsWithoutWaitingItsAge(WorkQueueKind queue, IdleWaitKind idleWait)
    {
        SlimThreadPool pool = TestPools.Create(queue, idleWait, 2, o => o.LowPriorityMaxDelay = LongAging);
        PriorityLanes lanes = LanesOf(pool);
        using var go = new ManualResetEventSlim();
        using var started = new ManualResetEventSlim();
        using var xRan = new ManualResetEventSlim();
        using var yRan = new ManualResetEventSlim();
        TimeSpan yWaited = TimeSpan.MaxValue;
        Assert.True(pool.TryQueue(() =>
        {
            started.Set();
            go.Wait(Bounded.Timeout);

            // An accepted Low item (a Low group's turn queuing itself again) between its add and its ticket's publish:
            // the other worker, draining, takes it straight from the lane; then its ticket lands, with nothing left.
            Assert.True(lanes.Add(WorkItemPriority.Low, new QueuedWorkItem((Action)xRan.Set, null, null)));
            xRan.Wait(TimeSpan.FromSeconds(5));
            pool.Publisher.PublishAccepted(lanes.TicketFor(WorkItemPriority.Low), preferLocal: false);

            // The next one, published whole: nothing else is queued, so it runs at once.
            var clock = Stopwatch.StartNew();
            Assert.True(lanes.Add(WorkItemPriority.Low, new QueuedWorkItem((Action)yRan.Set, null, null)));
            pool.Publisher.PublishAccepted(lanes.TicketFor(WorkItemPriority.Low), preferLocal: false);
            yRan.Wait(TimeSpan.FromSeconds(5));
            yWaited = clock.Elapsed;
        }));
        Bounded.Wait(started, "the publishing item to start");
        Task<ShutdownResult> drain = pool.ShutdownAsync(ShutdownMode.Drain);
        go.Set();
        ShutdownResult result = Bounded.Result(drain, "the drain");

        Assert.Equal(0, result.AbandonedCount);
        Assert.True(xRan.IsSet && yRan.IsSet, $"the Low items ran: first {xRan.IsSet}, second {yRan.IsSet}");
        Assert.True(yWaited < TimeSpan.FromSeconds(2), $"the second Low item waited {yWaited.TotalMilliseconds:F0} ms with nothing else queued: its ticket and the surplus one deferred each other");
    }

    [Theory]
    [MemberData(nameof(TestPools.QueueAndIdleWaits), MemberType = typeof(TestPools))]
    public void ShutdownAsync_DrainOfALowGroupAfterARacersLateTicket_NoTurnWaitsItsAge(WorkQueueKind queue, IdleWaitKind idleWait)
    {
        const int Items = 10;
        SlimThreadPool pool = TestPools.Create(queue, idleWait, 1, o => o.LowPriorityMaxDelay = TimeSpan.FromMilliseconds(300));
        PriorityLanes lanes = LanesOf(pool);
        SlimThreadPoolGroup group = pool.CreateGroup(new SlimGroupOptions { Priority = WorkItemPriority.Low, MaxItemsPerTurn = 1 });
        using var racingRan = new ManualResetEventSlim();
        int groupRuns = 0;
        var clock = new Stopwatch();
        ShutdownResult result;
        using (var blocked = new BlockedWorkers(pool))
        {
            // A racing producer's Low item, its ticket held back; then the group's items, whose turn's ticket runs the
            // racer's older item, so the worker takes the turn straight from the lane once the pool stops.
            Assert.True(lanes.Add(WorkItemPriority.Low, new QueuedWorkItem((Action)racingRan.Set, null, null)));
            for (int i = 0; i < Items; i++)
            {
                Assert.True(group.TryQueue(() =>
                {
                    Thread.Sleep(20);
                    Interlocked.Increment(ref groupRuns);
                }));
            }

            Task<ShutdownResult> drain = pool.ShutdownAsync(ShutdownMode.Drain);
            clock.Start();
            blocked.Release();
            Bounded.Wait(racingRan, "the racing item");
            pool.Publisher.PublishAccepted(lanes.TicketFor(WorkItemPriority.Low), preferLocal: false); // the racer's late ticket
            result = Bounded.Result(drain, "the drain");
        }

        Assert.Equal(0, result.AbandonedCount);
        Assert.Equal(Items, Volatile.Read(ref groupRuns));
        Assert.True(clock.Elapsed < TimeSpan.FromSeconds(1.5), $"the drain of {Items} Low group items of 20 ms took {clock.Elapsed.TotalMilliseconds:F0} ms: each turn waited its age");
    }

    [Theory]
    [MemberData(nameof(TestPools.QueueAndIdleWaitsByShutdownMode), MemberType = typeof(TestPools))]
    public void OnQueuedDuringShutdown_LateLowProducerBesideALateHighRacer_BothRunWithoutSpinningForTheLowDelay(WorkQueueKind queue, IdleWaitKind idleWait, ShutdownMode mode)
    {
        // Past the last look a Low producer runs the leftover it left, its ticket; the ticket saw a racer's High item
        // counted (its ticket not yet published), deferred, and the producer took it straight back, spinning for the
        // whole delay (found by an adversarial review). Once the pool has shut down, only the queue counts as other work.
        SlimThreadPool pool = TestPools.Create(queue, idleWait, 1, o => o.LowPriorityMaxDelay = TimeSpan.FromSeconds(30));
        Assert.Equal(0, Bounded.Result(pool.ShutdownAsync(mode), "the shutdown").AbandonedCount);
        var warmUp = new CountingWorkItem(null);
        pool.Publisher.PublishAccepted(warmUp, preferLocal: false, WorkItemPriority.Low); // makes the lanes; runs on this thread
        PriorityLanes lanes = pool.Lanes!;

        var high = new CountingWorkItem(null);
        Assert.True(lanes.Add(WorkItemPriority.High, new QueuedWorkItem(high, null, null))); // the High racer, its ticket held back
        var clock = Stopwatch.StartNew();
        var low = new CountingWorkItem(null);
        pool.Publisher.PublishAccepted(low, preferLocal: false, WorkItemPriority.Low);      // the Low producer lands
        TimeSpan took = clock.Elapsed;
        pool.Publisher.PublishAccepted(lanes.TicketFor(WorkItemPriority.High), preferLocal: false); // the High racer goes on

        Assert.True(took < TimeSpan.FromSeconds(2), $"the late Low producer took {took.TotalMilliseconds:F0} ms: its ticket deferred behind the racer's High item");
        Assert.Equal((1, 1, 1), (warmUp.Executions, high.Executions, low.Executions));
    }

    [Theory]
    [MemberData(nameof(TestPools.QueueAndIdleWaitsByShutdownMode), MemberType = typeof(TestPools))]
    public void OnQueuedDuringShutdown_LateHighProducerThenAnother_EachItemRunsOnce(WorkQueueKind queue, IdleWaitKind idleWait, ShutdownMode mode)
    {
        // A late producer runs one leftover for each item it left; had the looks taken High items from the lane before the
        // queue, the first would run its own item and leave its ticket, and the second would take that empty ticket as
        // its leftover and leave its own item queued for ever (an adversarial review of such a change).
        SlimThreadPool pool = TestPools.Create(queue, idleWait, 1, o => o.LowPriorityMaxDelay = TimeSpan.FromMilliseconds(1));
        Assert.Equal(0, Bounded.Result(pool.ShutdownAsync(mode), "the shutdown").AbandonedCount);
        var high = new CountingWorkItem(null);
        pool.Publisher.PublishAccepted(high, preferLocal: false, WorkItemPriority.High);
        var second = new CountingWorkItem(null);
        pool.Publisher.PublishAccepted(second, preferLocal: false);
        Assert.Equal((1, 1), (high.Executions, second.Executions));
    }

    // A pool's lanes, made by a first Low item that has run, its ticket done.
    private static PriorityLanes LanesOf(SlimThreadPool pool)
    {
        using (var made = new ManualResetEventSlim())
        {
            Assert.True(pool.TryQueue(made.Set, WorkItemPriority.Low));
            Bounded.Wait(made, "the first Low item, which makes the lanes");
        }

        Bounded.Wait(pool.WaitForIdleAsync(), "the first Low item's ticket");
        return pool.Lanes!;
    }
}
