using SlimPool.Queues;
using SlimPool.Scheduling;
using SlimPool.Tests.Infrastructure;

namespace SlimPool.Tests.Priorities;

/// <summary>
/// A lane's tickets are not tied to its items: a ticket runs (or hands back) the lane's oldest item. A producer that
/// races the shutdown can have its item in the lane while its ticket is not yet queued; the tickets queued before the
/// shutdown then take that item, and one accepted before the shutdown began is left over. These tests stop a racing
/// producer at that point (its <see cref="PriorityLanes.Add"/> done, its ticket not yet published), then shut down, then
/// let it publish: the item accepted before the shutdown must be run or handed back by the shutdown, never by the racing
/// producer after the shutdown returned.
/// </summary>
public sealed class PriorityShutdownRaceTests
{
    public static TheoryData<WorkQueueKind, IdleWaitKind, WorkItemPriority, ShutdownMode> Cases()
    {
        var cases = new TheoryData<WorkQueueKind, IdleWaitKind, WorkItemPriority, ShutdownMode>();
        foreach (var row in TestPools.QueueAndIdleWaits())
        {
            foreach (WorkItemPriority priority in (WorkItemPriority[])[WorkItemPriority.High, WorkItemPriority.Low])
            {
                foreach (ShutdownMode mode in (ShutdownMode[])[ShutdownMode.Abandon, ShutdownMode.Drain])
                {
                    cases.Add((WorkQueueKind)row[0], (IdleWaitKind)row[1], priority, mode);
                }
            }
        }

        return cases;
    }

    [Theory]
    [MemberData(nameof(Cases))]
    public void ShutdownAsync_AProducerRacingWithItsItemInTheLane_ItemsAcceptedBeforeAreTakenByTheShutdown(WorkQueueKind queue, IdleWaitKind idleWait, WorkItemPriority priority, ShutdownMode mode)
    {
        SlimThreadPool pool = TestPools.Create(1, o =>
        {
            o.Queue = queue;
            o.IdleWait = idleWait;
            o.LowPriorityMaxDelay = TimeSpan.FromMilliseconds(1); // a Low ticket runs its item at once, never defers
        });
        const int First = 0, Racing = 1, Accepted = 2;
        const int DuringShutdown = 0, LateProducer = 1, HandedBack = 2;
        int phase = DuringShutdown;
        int[,] runs = new int[3, 3]; // [phase, item]
        Action Item(int id) => () => Interlocked.Increment(ref runs[Volatile.Read(ref phase), id]);
        using var blocked = new BlockedWorkers(pool);

        // First: accepted, its ticket queued. Racing: in the lane and counted, its ticket held back as if its producer
        // were preempted before publishing it. Accepted: queued after Racing, with its own ticket.
        Assert.True(pool.TryQueue(Item(First), priority));
        PriorityLanes lanes = pool.Lanes!;
        Assert.True(lanes.Add(priority, new QueuedWorkItem(Item(Racing), null, null)), "the racing item needs a ticket of its own");
        Assert.True(pool.TryQueue(Item(Accepted), priority));

        Task<ShutdownResult> shutdown = pool.ShutdownAsync(mode);
        blocked.Release();
        ShutdownResult result = Bounded.Result(shutdown, "the shutdown");

        // The racing producer goes on: its ticket lands after the shutdown finished, and it runs what it left.
        Volatile.Write(ref phase, LateProducer);
        pool.Publisher.PublishAccepted(lanes.TicketFor(priority), preferLocal: false);

        Volatile.Write(ref phase, HandedBack);
        foreach (AbandonedWorkItem item in result.AbandonedItems)
        {
            item.Run();
        }

        string table = $"{mode} of {priority} items; runs during the shutdown / by the late producer / handed back: " +
            string.Join(", ", new[] { "first", "racing", "accepted" }.Select((name, id) => $"{name} {runs[DuringShutdown, id]}/{runs[LateProducer, id]}/{runs[HandedBack, id]}"));
        int expectedDuring = mode == ShutdownMode.Drain ? 1 : 0;
        foreach (int id in (int[])[First, Accepted])
        {
            Assert.True(runs[DuringShutdown, id] == expectedDuring && runs[LateProducer, id] == 0 && runs[HandedBack, id] == 1 - expectedDuring, table);
        }

        Assert.True(runs[DuringShutdown, Racing] + runs[LateProducer, Racing] + runs[HandedBack, Racing] == 1, table);
    }

    [Theory]
    [MemberData(nameof(TestPools.QueueAndIdleWaitsByShutdownMode), MemberType = typeof(TestPools))]
    public void ShutdownAsync_HighItemAddedPastTheLastLookUnderAnotherProducersOwedTicket_RunsOnItsOwnProducer(WorkQueueKind queue, IdleWaitKind idleWait, ShutdownMode mode)
    {
        // The owed ticket's producer is stopped between its add and its publish; the shutdown's last look takes that
        // producer's item from the lane. A second producer, accepted before the shutdown, adds its High item after the
        // last look: the owed ticket covers it, so it publishes nothing. It must still run its item before it returns,
        // not leave it for the stopped producer to run on its thread whenever it resumes. (An adversarial hunt: it ran
        // only once the first producer published its ticket.)
        SlimThreadPool pool = TestPools.Create(queue, idleWait, 1);
        using (var lanesMade = new ManualResetEventSlim())
        {
            Assert.True(pool.TryQueue(lanesMade.Set, WorkItemPriority.High));
            Bounded.Wait(lanesMade, "the first High item, which makes the lanes");
        }

        // Its ticket too is done (the worker may have taken the item straight from the lane, the ticket still queued).
        Bounded.Wait(pool.WaitForIdleAsync(), "the first High item's ticket");

        PriorityLanes lanes = pool.Lanes!;
        int owedRuns = 0;
        Assert.True(lanes.Add(WorkItemPriority.High, new QueuedWorkItem((Action)(() => Interlocked.Increment(ref owedRuns)), null, null)), "the first producer owes a ticket");
        ShutdownResult result = Bounded.Result(pool.ShutdownAsync(mode), "the shutdown");
        Assert.Equal(mode == ShutdownMode.Drain ? 1 : 0, owedRuns); // the last look took the first producer's item
        Assert.Equal(mode == ShutdownMode.Abandon ? 1 : 0, result.AbandonedCount);

        // The second producer, past the pool's flag before the shutdown, now publishes into the lane.
        var second = new CountingWorkItem(null);
        pool.Publisher.PublishAccepted(second, preferLocal: false, WorkItemPriority.High);
        Assert.Equal(1, second.Executions);

        // The first producer resumes: its ticket finds nothing left.
        pool.Publisher.PublishAccepted(lanes.TicketFor(WorkItemPriority.High), preferLocal: false);
        Assert.Equal(1, second.Executions);
        Assert.Equal(mode == ShutdownMode.Drain ? 1 : 0, owedRuns);
    }

    [Theory]
    [MemberData(nameof(TestPools.QueueAndIdleWaits), MemberType = typeof(TestPools))]
    public void ShutdownAsync_DrainWithAnAcceptedLowItemWhoseTicketTookARacingItem_RunsItOnAWorker(WorkQueueKind queue, IdleWaitKind idleWait)
    {
        // The drain's workers must take the item left in the lane before they leave, not leave it to the thread that
        // finishes the shutdown.
        var left = new LowItemLeftInItsLane(queue, idleWait);
        ShutdownResult result = Bounded.Result(left.Pool.ShutdownAsync(ShutdownMode.Drain), "the drain");

        // The held-back ticket lands after the shutdown: it finds nothing left.
        left.PublishHeldTicket();
        Assert.Equal(0, result.AbandonedCount);
        Assert.Equal(1, left.RacingRuns);
        Assert.Equal(1, left.AcceptedRuns);
        Assert.True(left.AcceptedOffWorkers == 0, "the item left in the lane ran off the pool's workers: the drain's worker left it to the shutdown's finish");
    }

    [Theory]
    [MemberData(nameof(TestPools.QueueAndIdleWaits), MemberType = typeof(TestPools))]
    public void WaitForIdleAsync_AnAcceptedLowItemLeftInItsLane_CompletesOnlyOnceItRan(WorkQueueKind queue, IdleWaitKind idleWait)
    {
        var left = new LowItemLeftInItsLane(queue, idleWait);
        using (left.Pool)
        {
            Task idle = left.Pool.WaitForIdleAsync();
            Thread.Sleep(100);
            bool idleBeforeItRan = idle.IsCompleted;

            // The racing producer publishes its ticket: it runs the item left in the lane.
            left.PublishHeldTicket();
            Bounded.Wait(idle, "the pool to go idle once the item left in the lane ran");
            Assert.False(idleBeforeItRan, "WaitForIdleAsync completed while an item accepted before it waited in its lane");
            Assert.Equal(1, left.AcceptedRuns);
        }
    }

    /// <summary>
    /// A pool of one worker whose Low lane holds an accepted item with no ticket queued for it: the item's ticket ran the
    /// lane's oldest item, a racing producer's, whose own ticket that producer holds back (as if it were preempted
    /// between its add and its publish) until <see cref="PublishHeldTicket"/>.
    /// </summary>
    private sealed class LowItemLeftInItsLane
    {
        private readonly PriorityLanes _lanes;
        private int _racingRuns, _acceptedRuns, _acceptedOffWorkers;

        public LowItemLeftInItsLane(WorkQueueKind queue, IdleWaitKind idleWait)
        {
            Pool = TestPools.Create(1, o =>
            {
                o.Queue = queue;
                o.IdleWait = idleWait;
                o.LowPriorityMaxDelay = TimeSpan.FromMilliseconds(1); // a Low ticket runs its item at once, never defers
            });
            using (var lanesMade = new ManualResetEventSlim())
            {
                Assert.True(Pool.TryQueue(lanesMade.Set, WorkItemPriority.Low));
                Bounded.Wait(lanesMade, "the first Low item, which makes the lanes");
            }

            Bounded.Wait(Pool.WaitForIdleAsync(), "the first Low item's ticket");
            _lanes = Pool.Lanes!;
            using var racingRan = new ManualResetEventSlim();
            Action racing = () =>
            {
                Interlocked.Increment(ref _racingRuns);
                racingRan.Set();
            };
            Assert.True(_lanes.Add(WorkItemPriority.Low, new QueuedWorkItem(racing, null, null)), "a Low item always brings its ticket");

            // Accepted, with its ticket queued: the ticket runs the lane's oldest item, the racing one.
            Assert.True(Pool.TryQueue(
                () =>
                {
                    Interlocked.Increment(ref _acceptedRuns);
                    if (!Pool.IsOwnWorker)
                    {
                        Interlocked.Increment(ref _acceptedOffWorkers);
                    }
                },
                WorkItemPriority.Low));
            Bounded.Wait(racingRan, "the accepted item's ticket, which runs the racing item");
        }

        public SlimThreadPool Pool { get; }

        public int RacingRuns => Volatile.Read(ref _racingRuns);

        public int AcceptedRuns => Volatile.Read(ref _acceptedRuns);

        public int AcceptedOffWorkers => Volatile.Read(ref _acceptedOffWorkers);

        public void PublishHeldTicket() => Pool.Publisher.PublishAccepted(_lanes.TicketFor(WorkItemPriority.Low), preferLocal: false);
    }
}
