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

    public static TheoryData<WorkQueueKind, IdleWaitKind, ShutdownMode> HighCases()
    {
        var cases = new TheoryData<WorkQueueKind, IdleWaitKind, ShutdownMode>();
        foreach (var row in TestPools.QueueAndIdleWaits())
        {
            foreach (ShutdownMode mode in (ShutdownMode[])[ShutdownMode.Abandon, ShutdownMode.Drain])
            {
                cases.Add((WorkQueueKind)row[0], (IdleWaitKind)row[1], mode);
            }
        }

        return cases;
    }

    [Theory]
    [MemberData(nameof(HighCases))]
    public void ShutdownAsync_HighItemAddedPastTheLastLookUnderAnotherProducersOwedTicket_RunsOnItsOwnProducer(WorkQueueKind queue, IdleWaitKind idleWait, ShutdownMode mode)
    {
        // The owed ticket's producer is stopped between its add and its publish; the shutdown's last look takes that
        // producer's item from the lane. A second producer, accepted before the shutdown, adds its High item after the
        // last look: the owed ticket covers it, so it publishes nothing. It must still run its item before it returns,
        // not leave it for the stopped producer to run on its thread whenever it resumes. (An adversarial hunt: it ran
        // only once the first producer published its ticket.)
        SlimThreadPool pool = TestPools.Create(1, o =>
        {
            o.Queue = queue;
            o.IdleWait = idleWait;
        });
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
        var second = new CountingItem();
        pool.Publisher.PublishAccepted(second, preferLocal: false, WorkItemPriority.High);
        Assert.Equal(1, second.Runs);

        // The first producer resumes: its ticket finds nothing left.
        pool.Publisher.PublishAccepted(lanes.TicketFor(WorkItemPriority.High), preferLocal: false);
        Assert.Equal(1, second.Runs);
        Assert.Equal(mode == ShutdownMode.Drain ? 1 : 0, owedRuns);
    }

    private sealed class CountingItem : IWorkItem
    {
        private int _runs;

        public int Runs => Volatile.Read(ref _runs);

        public void Execute() => Interlocked.Increment(ref _runs);
    }
}
