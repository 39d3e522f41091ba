using SlimPool.Tests.Infrastructure;

namespace SlimPool.Tests.Lifecycle;

/// <summary>
/// A group's item whose nested item (run inline by a full bounded pool) calls back into that group: a Send's async callback
/// resumes inside the group, a task on the group's scheduler waited for there runs inline, and a scope the nested item
/// opened ends with it (found by review; each failed before its fix).
/// </summary>
public sealed class NestedItemsCallingTheirGroupTests
{
    private static readonly TimeSpan Short = TimeSpan.FromSeconds(10);

    // A group's item X runs Y inline (full bounded pool); Y Sends an async callback to X's serial group. It runs inline
    // back inside the group, as from X itself, so its await resumes in the group and never beside the group's next item
    // Z (before, it ran under the workers' context and resumed outside the group, beside Z).
    [Theory]
    [InlineData(false)]
    [InlineData(true)]
    public void SendFromInlineItemUnderGroupItem_AsyncCallback_ResumesInsideTheGroup(bool fromNested)
    {
        var pool = TestPools.Create(workers: 2, o => { o.BoundedCapacity = 1; o.MaxWorkers = 2; });
        SlimThreadPoolGroup group = pool.CreateGroup();
        using var bHeld = new ManualResetEventSlim();
        using var releaseB = new ManualResetEventSlim();
        using var resumed = new ManualResetEventSlim();
        bool resumedInGroup = false;
        int gRunning = 0, overlap = 0;
        pool.Queue(() => { bHeld.Set(); releaseB.Wait(Bounded.Timeout); }); // worker 2 busy
        Bounded.Wait(bHeld, "worker 2 held");
        SendOrPostCallback callback = async _ =>
        {
            await Task.Yield();
            resumedInGroup = SynchronizationContext.Current == group.SynchronizationContext;
            for (int i = 0; i < 20; i++) { if (Volatile.Read(ref gRunning) != 0) overlap = 1; Thread.Sleep(10); }
            resumed.Set();
        };
        group.Queue(() =>
        {
            group.Queue(() => { Interlocked.Increment(ref gRunning); releaseB.Set(); Thread.Sleep(500); Interlocked.Decrement(ref gRunning); });
            pool.TryQueue(() => { });
            if (fromNested) pool.Queue(() => group.SynchronizationContext.Send(callback, null)); // full: inline here
            else group.SynchronizationContext.Send(callback, null);
        });
        Assert.True(resumed.Wait(Short), "continuation never ran");
        Assert.True(resumedInGroup && overlap == 0, $"continuation resumed in group: {resumedInGroup}, overlapped the group's next item: {overlap}");
    }

    // Through the group's TaskScheduler: Y (inline under the serial group's item X) waits for a task on the group's
    // scheduler, which runs inline back inside the group (before, it waited for the turn suspended under it: hung).
    [Theory]
    [InlineData(false)]
    [InlineData(true)]
    public void TaskOnGroupSchedulerWaitedFromInlineItemUnderGroupItem_DoesNotDeadlock(bool fromNested)
    {
        var pool = TestPools.Create(workers: 1, o => { o.BoundedCapacity = 1; o.MaxWorkers = 1; });
        SlimThreadPoolGroup group = pool.CreateGroup();
        using var done = new ManualResetEventSlim();
        bool ran = false;
        Action wait = () =>
        {
            Task<int> t = Task.Factory.StartNew(() => 42, CancellationToken.None, TaskCreationOptions.None, group.TaskScheduler);
            t.Wait(); ran = true; // infinite: only such a Wait tries TryExecuteTaskInline
            done.Set();
        };
        group.Queue(() =>
        {
            pool.TryQueue(() => { });
            if (fromNested) pool.Queue(wait); else wait();
        });
        Assert.True(done.Wait(Short) && ran, "deadlock: the task waits for the group's turn suspended under the waiting thread");
    }

    // The nested item closes the outer item's scope (its innermost), opens its own and leaves it open: that scope ends
    // with the nested item (before, it sat at the outer's depth and outlived it).
    [Fact]
    public void NestedItemLeavesAScopeOpenAfterClosingTheOuters_ItEndsWithTheNestedItem()
    {
        var pool = TestPools.Create(workers: 1, o => { o.BoundedCapacity = 1; o.MaxWorkers = 1; });
        using var done = new ManualResetEventSlim();
        int blockedAfterY = -1;
        pool.Queue(() =>
        {
            BlockingScope s1 = pool.EnterBlocking();
            pool.TryQueue(() => { });
            pool.Queue(() => { s1.Dispose(); _ = pool.EnterBlocking(); }); // inline; leaves its scope open
            blockedAfterY = pool.BlockedWorkerCount; // s1 closed, Y's scope ended with Y: 0
            done.Set();
        });
        Bounded.Wait(done, "outer item");
        Assert.Equal(0, blockedAfterY);
    }
}
