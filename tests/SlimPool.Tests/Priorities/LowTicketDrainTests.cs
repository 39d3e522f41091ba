using System.Collections.Concurrent;
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
        SlimThreadPool pool = TestPools.Create(2, o =>
        {
            o.Queue = queue;
            o.IdleWait = idleWait;
            o.LowPriorityMaxDelay = LongAging;
        });
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
        SlimThreadPool pool = TestPools.Create(1, o =>
        {
            o.Queue = queue;
            o.IdleWait = idleWait;
            o.LowPriorityMaxDelay = TimeSpan.FromMilliseconds(300);
        });
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
    [MemberData(nameof(TestPools.QueueAndIdleWaits), MemberType = typeof(TestPools))]
    public void ShutdownAsync_FinishWithALowTicketAndARacersUnticketedHighItem_RunsTheHighItemFirstWithoutSpinning(WorkQueueKind queue, IdleWaitKind idleWait)
    {
        // The finish looked at the queue before the lanes: the Low ticket saw a High item counted (a racer's, its ticket
        // not yet published), deferred, and the finish took it straight back, over and over, until the Low item had
        // waited its whole delay; then the Low item ran first (found by an adversarial review).
        SlimThreadPool pool = TestPools.Create(1, o =>
        {
            o.Queue = queue;
            o.IdleWait = idleWait;
            o.LowPriorityMaxDelay = TimeSpan.FromSeconds(5);
        });
        PriorityLanes lanes = LanesOf(pool);
        using var go = new ManualResetEventSlim();
        var order = new ConcurrentQueue<string>();

        // A long-running task holds the finish (it waits for them) until the racers, past the shutdown flag before the
        // stop, have landed once the workers left: a Low item with its ticket, and a High item whose ticket is held back.
        Task longRunning = Task.Factory.StartNew(
            () =>
            {
                go.Wait(Bounded.Timeout);
                Assert.True(lanes.Add(WorkItemPriority.Low, new QueuedWorkItem((Action)(() => order.Enqueue("low")), null, null)));
                pool.Publisher.PublishAccepted(lanes.TicketFor(WorkItemPriority.Low), preferLocal: false);
                Assert.True(lanes.Add(WorkItemPriority.High, new QueuedWorkItem((Action)(() => order.Enqueue("high")), null, null)));
            },
            CancellationToken.None,
            TaskCreationOptions.LongRunning,
            pool.TaskScheduler);

        Task<ShutdownResult> drain = pool.ShutdownAsync(ShutdownMode.Drain);
        Bounded.Until(() => pool.LiveWorkerCount == 0, "the workers to leave");
        var clock = Stopwatch.StartNew();
        go.Set();
        Bounded.Wait(longRunning, "the long-running task");
        ShutdownResult result = Bounded.Result(drain, "the drain");
        TimeSpan took = clock.Elapsed;
        pool.Publisher.PublishAccepted(lanes.TicketFor(WorkItemPriority.High), preferLocal: false); // the High racer goes on

        Assert.Equal(0, result.AbandonedCount);
        Assert.Equal(["high", "low"], order.ToArray());
        Assert.True(took < TimeSpan.FromSeconds(2), $"the finish took {took.TotalMilliseconds:F0} ms: the Low ticket deferred for its whole delay");
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
