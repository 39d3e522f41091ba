using SlimPool.Groups;
using SlimPool.Tests.Infrastructure;

namespace SlimPool.Tests.Groups;

/// <summary>
/// A group's empty queue is kept while the worker that ended its turn stays busy or briefly parked, and dropped once that
/// worker has parked for <see cref="DeferredQueueDrops.KeepWhileParkedMilliseconds"/> or when more than
/// <see cref="DeferredQueueDrops.Capacity"/> other groups ended a turn on it since: a busy serial queue is not remade for
/// each item or each pause of its producer, and an idle pool keeps no queue for an idle group. Alone: whether the worker
/// parks between items that come every few milliseconds depends on its getting a core (a full parallel run kept it
/// searching, never parked, for a whole second once).
/// </summary>
[Collection(RunsAloneCollection.Name)]
public sealed class DeferredQueueDropTests
{
    private static readonly Action<object?> s_signal = static state => ((CountdownEvent)state!).Signal();

    public static TheoryData<WorkQueueKind, IdleWaitKind> Configurations() => new()
    {
        { WorkQueueKind.WorkStealing, IdleWaitKind.SpinThenPark },
        { WorkQueueKind.LockFree, IdleWaitKind.AutoResetEvent },
    };

    [Theory]
    [MemberData(nameof(Configurations))]
    public void Queue_GroupsEndTheirTurnsOnABusyWorker_TheLatestKeepTheirQueueUntilTheWorkerParks(WorkQueueKind queue, IdleWaitKind idleWait)
    {
        const int Groups = DeferredQueueDrops.Capacity + 36;
        using SlimThreadPool pool = OneWorker(queue, idleWait); // no spare: the one worker runs everything, in queue order
        using var first = new ManualResetEventSlim();
        using var last = new ManualResetEventSlim();
        using var lastStarted = new ManualResetEventSlim();
        using var ran = new CountdownEvent(Groups);

        // The worker is held by the first item while every group's turn and then the last item are queued from outside,
        // so it runs the turns one after another and then the last item, without parking in between.
        pool.Queue(() => first.Wait(Bounded.Timeout));
        var groups = new SlimThreadPoolGroup[Groups];
        for (int i = 0; i < Groups; i++)
        {
            groups[i] = pool.CreateGroup();
            groups[i].Queue(s_signal, ran);
        }

        pool.Queue(() =>
        {
            lastStarted.Set();
            last.Wait(Bounded.Timeout);
        });
        first.Set();
        Bounded.Wait(lastStarted, "the last item started after every group's turn");

        Assert.True(ran.IsSet, "every group's item ran before the last item");
        bool[] kept = [.. groups.Select(g => g.HasQueue)];
        Assert.Equal(DeferredQueueDrops.Capacity, kept.Count(k => k));
        Assert.All(kept.Take(Groups - DeferredQueueDrops.Capacity), k => Assert.False(k)); // the oldest were dropped
        Assert.All(kept.Skip(Groups - DeferredQueueDrops.Capacity), k => Assert.True(k));  // the latest are kept

        last.Set();
        Bounded.Until(() => groups.All(g => !g.HasQueue), "the worker dropped every queue it kept when it ran out of work");
        foreach (SlimThreadPoolGroup group in groups)
        {
            group.Dispose();
        }
    }

    [Theory]
    [MemberData(nameof(Configurations))]
    public void Queue_WorkerParksAfterTheGroupsTurn_KeepsTheQueueForAWhileThenDropsIt(WorkQueueKind queue, IdleWaitKind idleWait)
    {
        // A producer that pauses lets the worker park; the group's queue must still be there for its next burst for
        // KeepWhileParkedMilliseconds, then go. Dropped at the park, a streaming serial queue was remade and regrown
        // from 2 cells after every pause (about 150 rings a run of the serial-queues bench). Slowness here only makes
        // the drop later, so the lower bound cannot fail for it.
        using SlimThreadPool pool = OneWorker(queue, idleWait);
        using SlimThreadPoolGroup group = pool.CreateGroup();
        for (int round = 0; round < 3; round++)
        {
            long ended = 0;
            using var ran = new ManualResetEventSlim();
            group.Queue(() =>
            {
                Volatile.Write(ref ended, System.Diagnostics.Stopwatch.GetTimestamp());
                ran.Set();
            });
            Bounded.Wait(ran, "the group's item ran");
            Bounded.Until(() => !group.HasQueue, "the parked worker dropped the group's queue");
            TimeSpan kept = System.Diagnostics.Stopwatch.GetElapsedTime(Volatile.Read(ref ended));

            // The wait's clock has a millisecond's grain: allow a few short of the keep time.
            Assert.True(
                kept >= TimeSpan.FromMilliseconds(DeferredQueueDrops.KeepWhileParkedMilliseconds - 5),
                $"round {round}: the queue was dropped {kept.TotalMilliseconds:F1} ms after the item ended, under {DeferredQueueDrops.KeepWhileParkedMilliseconds} ms");
        }
    }

    [Theory]
    [MemberData(nameof(Configurations))]
    public void Queue_WorkerWokenOftenByItemsOfNoGroup_StillDropsItsGroupsQueues(WorkQueueKind queue, IdleWaitKind idleWait)
    {
        // The keep time runs from the first park after the groups' turns, not from each park: a worker woken every few
        // milliseconds by other items is nearly idle, and its idle groups must not keep their (possibly grown) queues
        // for as long as the ticks go on.
        using SlimThreadPool pool = OneWorker(queue, idleWait);
        SlimThreadPoolGroup[] groups = [.. Enumerable.Range(0, 20).Select(_ => pool.CreateGroup())];
        using var ran = new CountdownEvent(groups.Length);
        foreach (SlimThreadPoolGroup group in groups)
        {
            group.Queue(s_signal, ran);
        }

        Bounded.Wait(ran, "every group's item ran");
        var ticking = System.Diagnostics.Stopwatch.StartNew();
        while (ticking.Elapsed < TimeSpan.FromSeconds(1) && groups.Any(g => g.HasQueue))
        {
            pool.Queue(static () => Thread.SpinWait(10));
            Thread.Sleep(5);
        }

        Assert.Equal(0, groups.Count(g => g.HasQueue));
        foreach (SlimThreadPoolGroup group in groups)
        {
            group.Dispose();
        }
    }

    // One worker and no starvation guard: a spare would run items, park and drop queues of its own.
    private static SlimThreadPool OneWorker(WorkQueueKind queue, IdleWaitKind idleWait) => TestPools.Create(workers: 1, o =>
    {
        o.Queue = queue;
        o.IdleWait = idleWait;
        o.StarvationTimeout = Timeout.InfiniteTimeSpan;
    });

    [Theory]
    [MemberData(nameof(Configurations))]
    public void ShutdownAsync_GroupAbandonRacingItsOwnTurnEnd_LeavesNoQueueBehind(WorkQueueKind queue, IdleWaitKind idleWait)
    {
        // The turn ends while the abandon sweeps the queue, and leaves the queue to the sweep; the abandon must then drop
        // the emptied queue itself. Before, 8 to 15 rounds in 20 kept the queue for as long as the group lived.
        using SlimThreadPool pool = TestPools.Create(workers: 2, o =>
        {
            o.Queue = queue;
            o.IdleWait = idleWait;
        });
        for (int round = 0; round < 10; round++)
        {
            SlimThreadPoolGroup group = pool.CreateGroup();
            using var started = new ManualResetEventSlim();
            int release = 0;
            group.Queue(() =>
            {
                started.Set();
                while (Volatile.Read(ref release) == 0)
                {
                    Thread.SpinWait(10);
                }
            });
            for (int i = 0; i < 20_000; i++)
            {
                group.Queue(static () => { });
            }

            Bounded.Wait(started, "the group's first item started");
            var releaser = new Thread(() =>
            {
                Thread.SpinWait(2_000);
                Volatile.Write(ref release, 1);
            });
            releaser.Start();
            ShutdownResult result = Bounded.Result(group.ShutdownAsync(ShutdownMode.Abandon), "the group's abandon");
            Assert.True(releaser.Join(Bounded.Timeout), "the releaser finished");

            Assert.True(result.AbandonedItems.Count <= 20_000);
            Bounded.Until(() => !group.HasQueue, $"round {round}: the abandoned group dropped its emptied queue");
            group.Dispose();
        }
    }
}
