using SlimPool.Tests.Infrastructure;

namespace SlimPool.Tests.Diagnostics;

/// <summary>The pool's <see cref="SlimThreadPool.CompletedWorkItemCount"/> counts each user item once: never a priority ticket or a group's turn.</summary>
public sealed class CompletedCountTests
{
    public static TheoryData<WorkQueueKind, IdleWaitKind> Configurations() => TestPools.QueueAndIdleWaits();

    [Theory]
    [MemberData(nameof(Configurations))]
    public void CompletedWorkItemCount_HighItems_CountsEachOnce(WorkQueueKind queue, IdleWaitKind idleWait)
    {
        using SlimThreadPool pool = TestPools.Create(queue, idleWait, 2);
        using var done = new CountdownEvent(1_000);
        for (int i = 0; i < 1_000; i++)
        {
            pool.Queue(() => done.Signal(), WorkItemPriority.High);
        }

        Bounded.Wait(done, "the high items");
        Bounded.Wait(pool.WaitForIdleAsync(), "the pool to go idle");
        Assert.Equal(1_000, pool.CompletedWorkItemCount);
    }

    [Theory]
    [MemberData(nameof(Configurations))]
    public void CompletedWorkItemCount_LowItemsDeferredBehindOthers_CountsEachOnce(WorkQueueKind queue, IdleWaitKind idleWait)
    {
        using SlimThreadPool pool = TestPools.Create(2, o => { o.Queue = queue; o.IdleWait = idleWait; o.LowPriorityMaxDelay = TimeSpan.FromMilliseconds(20); });
        using var done = new CountdownEvent(1_012);
        for (int i = 0; i < 1_002; i++)
        {
            pool.Queue(() => { Thread.SpinWait(200); done.Signal(); });
            if (i % 100 == 0 && i < 1_000)
            {
                pool.Queue(() => done.Signal(), WorkItemPriority.Low); // each is deferred while the others wait
            }
        }

        Bounded.Wait(done, "the items");
        Bounded.Wait(pool.WaitForIdleAsync(), "the pool to go idle");
        Assert.Equal(1_012, pool.CompletedWorkItemCount);
    }

    [Theory]
    [MemberData(nameof(Configurations))]
    public void CompletedWorkItemCount_GroupItemsAndPlainItems_CountsEachItemNotTheTurns(WorkQueueKind queue, IdleWaitKind idleWait)
    {
        using SlimThreadPool pool = TestPools.Create(queue, idleWait, 2);
        SlimThreadPoolGroup serial = pool.CreateGroup(new SlimGroupOptions { MaxItemsPerTurn = 4 });
        SlimThreadPoolGroup high = pool.CreateGroup(new SlimGroupOptions { MaxConcurrency = 2, Priority = WorkItemPriority.High });
        using var done = new CountdownEvent(900);
        for (int i = 0; i < 300; i++)
        {
            serial.Queue(() => done.Signal());
            high.Queue(() => done.Signal());
            pool.Queue(() => done.Signal());
        }

        Bounded.Wait(done, "the items");
        Bounded.Wait(pool.WaitForIdleAsync(), "the pool to go idle");
        Assert.Equal(900, pool.CompletedWorkItemCount);
        Assert.Equal(300, serial.CompletedWorkItemCount);
        Assert.Equal(300, high.CompletedWorkItemCount);
    }

    [Fact]
    public void CompletedWorkItemCount_ItemsRunByTheShutdown_AreCounted()
    {
        SlimThreadPool pool = TestPools.Create(1);
        int ran = 0;
        using (var blocked = new BlockedWorkers(pool))
        {
            for (int i = 0; i < 50; i++)
            {
                pool.Queue(() => Interlocked.Increment(ref ran), WorkItemPriority.High);
                pool.Queue(() => Interlocked.Increment(ref ran));
            }

            // Dispose from an item of the pool's own worker: that worker runs what is left, inside the item.
            pool.Queue(pool.Dispose);
        }

        Bounded.Wait(pool.ShutdownAsync(ShutdownMode.Drain), "the drain");
        Assert.Equal(100, ran);
        Assert.Equal(100 + 1 + 1, pool.CompletedWorkItemCount); // the items, the blocking item and the disposing item
    }
}
