using SlimPool.Tests.Infrastructure;

namespace SlimPool.Tests.Lifecycle;

/// <summary>
/// Items run inside another item on the same thread (by a worker's <c>Dispose</c>, inline by a full bounded pool):
/// a Send to the group whose item is suspended under them, a Send during the shutdown, and the blocking scopes they leave
/// open (found by review; each failed before its fix).
/// </summary>
public sealed class NestedItemsTests
{
    private static readonly TimeSpan Short = TimeSpan.FromSeconds(10);

    // A group's item on a worker disposes the pool; its Dispose loop runs a plain leftover that Sends to the SAME
    // group. Run() now leaves the group (GroupTurns.Leave), so the Send is not inline; it posts to the group, whose turn
    // is the one suspended on this very thread: self-deadlock, whatever the number of workers.
    [Fact]
    public void GroupSend_FromALeftoverRunInsideThatGroupsOwnItemsDispose_DoesNotDeadlock()
    {
        var pool = TestPools.Create(workers: 2); // not disposed with `using`: on failure the worker is stuck
        SlimThreadPoolGroup group = pool.CreateGroup();
        using var otherHeld = new ManualResetEventSlim();
        using var releaseOther = new ManualResetEventSlim();
        using var gStarted = new ManualResetEventSlim();
        using var leftoverQueued = new ManualResetEventSlim();
        using var sent = new ManualResetEventSlim();
        Exception? failure = null;

        pool.Queue(() => { otherHeld.Set(); releaseOther.Wait(TimeSpan.FromSeconds(2)); }); // worker 2 busy for 2 s
        Bounded.Wait(otherHeld, "worker 2 held");
        group.Queue(() =>
        {
            gStarted.Set();
            leftoverQueued.Wait(Bounded.Timeout);
            pool.Dispose(); // on its worker: runs the leftover below here
        });
        Bounded.Wait(gStarted, "the group's item");
        pool.Queue(() =>
        {
            try { group.SynchronizationContext.Send(_ => sent.Set(), null); }
            catch (Exception e) { failure = e; sent.Set(); }
        });
        leftoverQueued.Set();
        Assert.True(sent.Wait(Short), "deadlock: the group's Send waits for a turn suspended on its own thread");
        Assert.Null(failure);
    }

    // A group's item on a worker queues into a full bounded pool queue; the item runs
    // inline outside the group (RunInline's GroupTurns.Leave) and Sends to that group: it waits for its own turn.
    [Fact]
    public void GroupSend_FromAnInlineItemInsideThatGroupsItem_DoesNotDeadlock()
    {
        var pool = TestPools.Create(workers: 1, o => { o.BoundedCapacity = 1; o.MaxWorkers = 1; });
        SlimThreadPoolGroup group = pool.CreateGroup();
        using var sent = new ManualResetEventSlim();
        group.Queue(() =>
        {
            pool.TryQueue(() => { });  // fill the one slot
            pool.Queue(() => group.SynchronizationContext.Send(_ => sent.Set(), null)); // full: runs inline here
        });
        Assert.True(sent.Wait(Short), "deadlock: an inline item's Send to the group whose item it runs inside");
    }

    // One worker; a plain item disposes the pool on the worker; the leftover it runs Sends to a group. Not inline
    // any more (IsOwnWorker excludes it from the throw): it posts the group's turn and waits for it, but the only worker
    // is the one waiting, and the pool starts no spare after Begin (_workers.Close()).
    [Fact]
    public void GroupSend_FromALeftoverInTheOnlyWorkersDisposeLoop_DoesNotDeadlock()
    {
        var pool = TestPools.Create(workers: 1);
        SlimThreadPoolGroup group = pool.CreateGroup();
        using var xStarted = new ManualResetEventSlim();
        using var leftoverQueued = new ManualResetEventSlim();
        using var sent = new ManualResetEventSlim();
        Exception? failure = null;
        pool.Queue(() =>
        {
            xStarted.Set();
            leftoverQueued.Wait(Bounded.Timeout);
            pool.Dispose();
        });
        Bounded.Wait(xStarted, "the disposing item");
        pool.Queue(() =>
        {
            try { group.SynchronizationContext.Send(_ => sent.Set(), null); }
            catch (Exception e) { failure = e; sent.Set(); }
        });
        leftoverQueued.Set();
        Assert.True(sent.Wait(Short), "deadlock: the only worker waits in Send for a group turn only it could run");
        Assert.True(failure is null or ObjectDisposedException, failure?.ToString());
    }

    // A scope the nested item left open "ended with it" (EndOfNestedItem lowers _depth but keeps the episode), so
    // the stale scope's identity (depth 2, episode E) is reused by the outer item's next scope; disposing the stale one
    // (documented: a scope already ended does nothing) closes the outer's live scope, and then the out-of-order dispose
    // of the outer's first scope (documented: does nothing) un-counts the worker while it is still inside a scope.
    [Fact]
    public void StaleScopeOfANestedItem_DisposedLater_DoesNotCloseTheOuterItemsScope()
    {
        var pool = TestPools.Create(workers: 1, o => o.MaxWorkers = 1); // no spare: the leftover runs in the Dispose loop
        using var xStarted = new ManualResetEventSlim();
        using var leftoverQueued = new ManualResetEventSlim();
        using var done = new ManualResetEventSlim();
        BlockingScope stale = default;
        var trace = new System.Collections.Concurrent.ConcurrentQueue<string>();
        int blockedInsideS3 = -1;
        pool.Queue(() =>
        {
            xStarted.Set();
            leftoverQueued.Wait(Bounded.Timeout);
            BlockingScope s1 = pool.EnterBlocking();   // (1, E)
            trace.Enqueue("after s1 " + pool.BlockedWorkerCount);
            pool.Dispose();
            trace.Enqueue("after dispose " + pool.BlockedWorkerCount);                             // runs the leftover here: it opens (2, E) and leaves it
            BlockingScope s3 = pool.EnterBlocking();   // (2, E) again
            trace.Enqueue("after s3 " + pool.BlockedWorkerCount);
            stale.Dispose();                            // ended with its item: must do nothing
            trace.Enqueue("after stale " + pool.BlockedWorkerCount);
            s1.Dispose();                               // out of order while s3 is open: must do nothing
            blockedInsideS3 = pool.BlockedWorkerCount;  // still inside s3
            s3.Dispose();
            done.Set();
        });
        Bounded.Wait(xStarted, "the outer item");
        pool.Queue(() => stale = pool.EnterBlocking());
        leftoverQueued.Set();
        Bounded.Wait(done, "the outer item to finish");
        Assert.True(1 == blockedInsideS3, string.Join("; ", trace) + " inside s3: " + blockedInsideS3);
    }
}

/// <summary>A group's item disposing the pool, whose loop runs another group's turn: contexts and scopes come back whole.</summary>
public sealed class NestedTurnRestoreTests
{
    // A serial group's item disposes the pool on the only worker; the Dispose loop runs another group's turn whose
    // item leaves a scope open and an await-free plain item. After Dispose: back in the first group (its Send inline),
    // under its SynchronizationContext, counted blocked only by the outer's own scope.
    [Fact]
    public void GroupItemsDispose_RunsNestedTurn_RestoresGroupContextAndScopes()
    {
        var pool = TestPools.Create(workers: 1, o => o.MaxWorkers = 1);
        SlimThreadPoolGroup g1 = pool.CreateGroup();
        SlimThreadPoolGroup g2 = pool.CreateGroup();
        using var started = new ManualResetEventSlim();
        using var queued = new ManualResetEventSlim();
        using var done = new ManualResetEventSlim();
        bool sameContext = false, inlineSend = false, g2Ran = false;
        int blockedAfter = -1, blockedInG2 = -1;
        g1.Queue(() =>
        {
            started.Set();
            queued.Wait(Bounded.Timeout);
            using BlockingScope s1 = pool.EnterBlocking();
            pool.Dispose();
            sameContext = SynchronizationContext.Current == g1.SynchronizationContext;
            int t = Environment.CurrentManagedThreadId;
            g1.SynchronizationContext.Send(_ => inlineSend = Environment.CurrentManagedThreadId == t, null);
            blockedAfter = pool.BlockedWorkerCount;
            done.Set();
        });
        Bounded.Wait(started, "g1 item");
        g2.Queue(() => { _ = pool.EnterBlocking(); blockedInG2 = pool.BlockedWorkerCount; });
        g2.Queue(() => { g2Ran = true; });
        queued.Set();
        Assert.True(done.Wait(TimeSpan.FromSeconds(10)), "hung");
        Assert.True(sameContext, "context");
        Assert.True(inlineSend, "inline send");
        Assert.True(g2Ran);
        Assert.Equal(1, blockedInG2);
        Assert.Equal(1, blockedAfter);
        Bounded.Until(() => pool.BlockedWorkerCount == 0, "scope ends");
    }
}
