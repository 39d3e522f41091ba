using System.Diagnostics;
using SlimPool.Tests.Infrastructure;

namespace SlimPool.Tests.Groups;

/// <summary>
/// Groups where the starvation guard, spares and priorities meet them: a blocked serial item's worker-queued work runs on
/// a spare, a wide group stays within its limit while spares come, a Low group under a flood runs, and High items queued
/// from a turn start before queued Normal ones (from an adversarial hunt, which found them holding).
/// </summary>
public sealed class GroupsMeetGuardAndPrioritiesTests
{
    // A serial group's item on the only worker queues a plain item, a High item and another group's item (all onto
    // its own worker), then sleeps without saying so. The guard's spare must run them while it sleeps; the group's next
    // item must wait; the spare must retire afterwards.
    [Theory]
    [MemberData(nameof(TestPools.QueueAndIdleWaits), MemberType = typeof(TestPools))]
    public void Guard_SerialGroupItemBlocksWithItemsOnItsWorker_SpareRunsThemAndRetires(WorkQueueKind queue, IdleWaitKind idle)
    {
        using SlimThreadPool pool = TestPools.Create(1, o =>
        {
            o.Queue = queue;
            o.IdleWait = idle;
            o.StarvationTimeout = TimeSpan.FromMilliseconds(50);
            o.SpareWorkerIdleTimeout = TimeSpan.FromMilliseconds(200);
        });
        SlimThreadPoolGroup g = pool.CreateGroup(new SlimGroupOptions { MaxConcurrency = 1 });
        SlimThreadPoolGroup h = pool.CreateGroup(new SlimGroupOptions { MaxConcurrency = 1 });
        using var release = new ManualResetEventSlim();
        using var others = new CountdownEvent(3);
        int sleeping = 0, overlap = 0;
        g.Queue(() =>
        {
            Volatile.Write(ref sleeping, 1);
            pool.Queue(() => others.Signal());
            pool.Queue(() => others.Signal(), WorkItemPriority.High);
            h.Queue(() => others.Signal());
            release.Wait(TimeSpan.FromSeconds(3)); // blocks without saying so
            Volatile.Write(ref sleeping, 0);
        });
        using var second = new ManualResetEventSlim();
        g.Queue(() =>
        {
            if (Volatile.Read(ref sleeping) != 0) { Interlocked.Increment(ref overlap); }
            second.Set();
        });
        bool ran = others.Wait(TimeSpan.FromSeconds(2));
        bool secondEarly = second.IsSet;
        release.Set();
        Bounded.Wait(second, "the group's second item");
        Assert.True(ran, $"only {3 - others.CurrentCount} of 3 items queued by the blocked group item ran within 2 s (live {pool.LiveWorkerCount})");
        Assert.False(secondEarly, "the serial group's second item ran while its first was blocked");
        Assert.Equal(0, overlap);
        Bounded.Until(() => pool.LiveWorkerCount == 1, "spares retire");
    }

    // A group of two, items that sleep without saying so, guard on: spares must never let it exceed two.
    [Theory]
    [MemberData(nameof(TestPools.QueueAndIdleWaits), MemberType = typeof(TestPools))]
    public void Guard_WideGroupOfSleepersWithPlainSleepers_NeverExceedsItsLimit(WorkQueueKind queue, IdleWaitKind idle)
    {
        using SlimThreadPool pool = TestPools.Create(1, o =>
        {
            o.Queue = queue;
            o.IdleWait = idle;
            o.StarvationTimeout = TimeSpan.FromMilliseconds(20);
        });
        SlimThreadPoolGroup g = pool.CreateGroup(new SlimGroupOptions { MaxConcurrency = 2, MaxItemsPerTurn = 1 });
        int running = 0, max = 0;
        using var done = new CountdownEvent(40);
        for (int i = 0; i < 20; i++)
        {
            g.Queue(() =>
            {
                int now = Interlocked.Increment(ref running);
                int m;
                while ((m = Volatile.Read(ref max)) < now && Interlocked.CompareExchange(ref max, now, m) != m) { }
                Thread.Sleep(30);
                Interlocked.Decrement(ref running);
                done.Signal();
            });
            pool.Queue(() => { Thread.Sleep(30); done.Signal(); });
        }

        Bounded.Wait(done, "every item");
        Assert.True(max <= 2, $"the group of two ran {max} at once");
        Assert.True(max == 2, $"the group never reached two at once ({max})");
    }

    // A Low group's one item under a flood of Normal self-requeuing chains runs within a few max delays.
    [Theory]
    [MemberData(nameof(TestPools.QueueAndIdleWaits), MemberType = typeof(TestPools))]
    public void LowGroup_UnderAFloodThatNeverEnds_RunsAfterAboutItsMaxDelay(WorkQueueKind queue, IdleWaitKind idle)
    {
        using SlimThreadPool pool = TestPools.Create(2, o =>
        {
            o.Queue = queue;
            o.IdleWait = idle;
            o.LowPriorityMaxDelay = TimeSpan.FromMilliseconds(20);
        });
        SlimThreadPoolGroup low = pool.CreateGroup(new SlimGroupOptions { MaxConcurrency = 1, Priority = WorkItemPriority.Low, MaxItemsPerTurn = 1 });
        int stop = 0;
        Action? chain = null;
        chain = () => { Thread.SpinWait(200); if (Volatile.Read(ref stop) == 0) { pool.Queue(chain!); } };
        for (int i = 0; i < 8; i++) { pool.Queue(chain); }
        var sw = Stopwatch.StartNew();
        using var done = new CountdownEvent(5);
        var times = new long[5];
        for (int i = 0; i < 5; i++)
        {
            int k = i;
            low.Queue(() => { times[k] = sw.ElapsedMilliseconds; done.Signal(); });
        }

        bool ok = done.Wait(TimeSpan.FromSeconds(5));
        Volatile.Write(ref stop, 1);
        Assert.True(ok, $"only {5 - done.CurrentCount} of 5 Low group items ran within 5 s: {string.Join(",", times)}");
        Assert.True(times[4] < 2000, $"Low group's items ran at {string.Join(",", times)} ms");
    }

    // High items queued from inside a group's turn start before Normal items queued earlier from outside.
    [Theory]
    [MemberData(nameof(TestPools.QueueAndIdleWaits), MemberType = typeof(TestPools))]
    public void GroupTurn_QueuesHighItems_TheyStartBeforeQueuedNormalItems(WorkQueueKind queue, IdleWaitKind idle)
    {
        using SlimThreadPool pool = TestPools.Create(1, o => { o.Queue = queue; o.IdleWait = idle; });
        SlimThreadPoolGroup g = pool.CreateGroup(new SlimGroupOptions { MaxConcurrency = 1, MaxItemsPerTurn = 1 });
        using var gate = new ManualResetEventSlim();
        pool.Queue(() => gate.Wait());
        var order = new System.Collections.Concurrent.ConcurrentQueue<string>();
        using var done = new CountdownEvent(6);
        g.Queue(() => { pool.Queue(() => { order.Enqueue("H1"); done.Signal(); }, WorkItemPriority.High); done.Signal(); });
        for (int i = 0; i < 3; i++) { int k = i; pool.Queue(() => { order.Enqueue("N" + k); done.Signal(); }); }
        g.Queue(() => { pool.Queue(() => { order.Enqueue("H2"); done.Signal(); }, WorkItemPriority.High); });
        gate.Set();
        Bounded.Wait(done, "items");
        string[] seen = order.ToArray();
        Assert.True(seen[0] == "H1", $"order: {string.Join(",", seen)}");
    }
}
