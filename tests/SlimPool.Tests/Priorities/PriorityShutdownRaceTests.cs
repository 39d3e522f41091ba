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
}
