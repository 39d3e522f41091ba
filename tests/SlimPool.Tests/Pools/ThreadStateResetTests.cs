using SlimPool.Tests.Infrastructure;

namespace SlimPool.Tests.Pools;

/// <summary>What an item changes on its worker thread does not reach the next item (the built-in pool resets it too).</summary>
public sealed class ThreadStateResetTests
{
    [Theory]
    [InlineData(WorkQueueKind.Locked, IdleWaitKind.AutoResetEvent)]
    [InlineData(WorkQueueKind.LockFree, IdleWaitKind.SpinThenPark)]
    [InlineData(WorkQueueKind.WorkStealing, IdleWaitKind.SpinThenPark)]
    public void NameAndPriority_SetByAnItem_AreRestoredBeforeTheNextItem(WorkQueueKind queue, IdleWaitKind idleWait)
    {
        using SlimThreadPool pool = TestPools.Create(workers: 1, o =>
        {
            o.Queue = queue;
            o.IdleWait = idleWait;
            o.Name = "reset";
        });
        var seen = new TaskCompletionSource<(string? Name, ThreadPriority Priority)>(TaskCreationOptions.RunContinuationsAsynchronously);

        // The second item is queued by the first, so it runs next on the same (only) worker, with no idle gap between.
        pool.Queue(() =>
        {
            Thread.CurrentThread.Name = "renamed by an item";
            Thread.CurrentThread.Priority = ThreadPriority.AboveNormal;
            pool.Queue(() => seen.SetResult((Thread.CurrentThread.Name, Thread.CurrentThread.Priority)));
        });

        (string? name, ThreadPriority priority) = Bounded.Result(seen.Task, "the next item");
        Assert.Equal("reset #1", name);
        Assert.Equal(ThreadPriority.Normal, priority);
    }

    [Theory]
    [MemberData(nameof(GroupCases))]
    public void NameAndPriority_SetByAGroupsItem_AreRestoredBeforeTheNextItem(WorkQueueKind queue, IdleWaitKind idleWait, bool sameGroup)
    {
        // The next item in the same group runs in the same turn; one in another group, with work stealing, in the turn the
        // ending turn takes from the worker's slot: neither goes back through the worker's loop in between.
        using SlimThreadPool pool = TestPools.Create(workers: 1, o =>
        {
            o.Queue = queue;
            o.IdleWait = idleWait;
            o.Name = "reset";
        });
        using SlimThreadPoolGroup first = pool.CreateGroup();
        using SlimThreadPoolGroup second = pool.CreateGroup();
        var seen = new TaskCompletionSource<(string? Name, ThreadPriority Priority)>(TaskCreationOptions.RunContinuationsAsynchronously);

        first.Queue(() =>
        {
            Thread.CurrentThread.Name = "renamed by an item";
            Thread.CurrentThread.Priority = ThreadPriority.AboveNormal;
            (sameGroup ? first : second).Queue(() => seen.SetResult((Thread.CurrentThread.Name, Thread.CurrentThread.Priority)));
        });

        (string? name, ThreadPriority priority) = Bounded.Result(seen.Task, "the next item");
        Assert.Equal("reset #1", name);
        Assert.Equal(ThreadPriority.Normal, priority);
    }

    [Theory]
    [MemberData(nameof(Configurations))]
    public void NameAndPriority_SetByAnItemWhoseDisposeRunsAGroupsTurn_StayTheItemsAfterTheTurn(WorkQueueKind queue, IdleWaitKind idleWait)
    {
        // A Dispose on the pool's own worker runs what is left there, a group's turn included, inside the item: the name
        // and priority are the item's own until it returns (found by an adversarial review: the group's items put the
        // worker's back in the middle of the item).
        SlimThreadPool pool = TestPools.Create(queue, idleWait, workers: 1, o => o.Name = "reset");
        SlimThreadPoolGroup group = pool.CreateGroup();
        var seen = new TaskCompletionSource<(string? Name, ThreadPriority Priority, int GroupRan)>(TaskCreationOptions.RunContinuationsAsynchronously);
        int groupRan = 0;
        pool.Queue(() =>
        {
            Thread.CurrentThread.Name = "the item's own";
            Thread.CurrentThread.Priority = ThreadPriority.BelowNormal;
            group.Queue(() => Interlocked.Increment(ref groupRan));
            pool.Dispose();
            seen.SetResult((Thread.CurrentThread.Name, Thread.CurrentThread.Priority, Volatile.Read(ref groupRan)));
        });

        (string? name, ThreadPriority priority, int ran) = Bounded.Result(seen.Task, "the item that disposes its pool");
        Bounded.Run(pool.Dispose, "the pool's dispose");
        Assert.Equal(1, ran);
        Assert.Equal(("the item's own", ThreadPriority.BelowNormal), (name, priority));
    }

    public static TheoryData<WorkQueueKind, IdleWaitKind> Configurations() => TestPools.QueueAndIdleWaits();

    public static TheoryData<WorkQueueKind, IdleWaitKind, bool> GroupCases() => TestPools.QueueAndIdleWaitsWith(true, false);

    [Fact]
    public void IsBackground_ClearedByAnItem_IsRestoredOnceTheWorkerRunsOutOfWork()
    {
        // A foreground worker would keep the process alive: the worker restores the setting before it waits for work.
        using SlimThreadPool pool = TestPools.Create(workers: 1);
        Bounded.Wait(pool.Run(() => Thread.CurrentThread.IsBackground = false), "the item that clears IsBackground");
        Bounded.Wait(pool.WaitForIdleAsync(), "the pool to go idle");

        bool background = Bounded.Result(pool.Run(() => Thread.CurrentThread.IsBackground), "the next item");

        Assert.True(background);
    }
}
