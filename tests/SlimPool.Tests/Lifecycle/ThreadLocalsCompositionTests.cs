using SlimPool.Tests.Infrastructure;

namespace SlimPool.Tests.Lifecycle;

/// <summary>
/// What a thread keeps of the pool it runs items for (<c>PoolThreadLocals</c>: the worker it is, the group whose item it
/// runs and those it suspended, the mark of machinery entries) when turns, tickets and leftovers of one pool run nested
/// on threads of another, on plain threads and inside each other: contexts and the current group come back exactly, and
/// each user item is counted once (an adversarial review's cases).
/// </summary>
public sealed class ThreadLocalsCompositionTests
{
    [Fact]
    public void GroupQueue_LateProducerIsAnotherPoolsGroupItem_TurnRunsNestedAndBothGroupsContextsAndCountsComeBack()
    {
        var queue = new GatedQueue();
        using var poolA = queue.CreatePool();
        SlimThreadPoolGroup ga = poolA.CreateGroup();
        using var poolB = TestPools.Create(workers: 1);
        SlimThreadPoolGroup gb = poolB.CreateGroup();
        using var done = new ManualResetEventSlim(false);
        bool aCtx = false, aInlineSend = false, bReenteredCtx = false, bReenteredSameThread = false, aCtxAfterReentry = false;
        bool bCtxAfter = false, bInlineAfter = false, aRan = false;
        queue.HoldNextEnqueue();
        gb.Queue(() =>
        {
            int t = Environment.CurrentManagedThreadId;
            ga.Queue(() =>
            {
                aRan = true;
                aCtx = SynchronizationContext.Current == ga.SynchronizationContext;
                ga.SynchronizationContext.Send(_ => aInlineSend = Environment.CurrentManagedThreadId == t, null);
                gb.SynchronizationContext.Send(_ =>
                {
                    bReenteredSameThread = Environment.CurrentManagedThreadId == t;
                    bReenteredCtx = SynchronizationContext.Current == gb.SynchronizationContext;
                }, null);
                aCtxAfterReentry = SynchronizationContext.Current == ga.SynchronizationContext;
            });
            bCtxAfter = SynchronizationContext.Current == gb.SynchronizationContext;
            gb.SynchronizationContext.Send(_ => bInlineAfter = Environment.CurrentManagedThreadId == t, null);
            done.Set();
        });
        Bounded.Wait(queue.Held, "pool B's group item to reach pool A's enqueue");
        poolA.Dispose();
        queue.Release();
        Bounded.Wait(done, "pool B's group item");
        Assert.True(aRan, "A's group item ran");
        Assert.True(aCtx, "A's item under A's group context");
        Assert.True(aInlineSend, "A's group current in its item");
        Assert.True(bReenteredSameThread, "B's suspended group re-entered inline");
        Assert.True(bReenteredCtx, "re-entered B under B's context");
        Assert.True(aCtxAfterReentry, "A's context back after the re-entry");
        Assert.True(bCtxAfter, "B's context back after the nested turn");
        Assert.True(bInlineAfter, "B's group current again");
        Assert.Equal(1, ga.CompletedWorkItemCount);
        Assert.Equal(1, poolA.CompletedWorkItemCount);
        Bounded.Until(() => gb.CompletedWorkItemCount == 1, "B's group counts its item");
        Bounded.Until(() => poolB.CompletedWorkItemCount == 1, "B counts its item");
        Thread.Sleep(50);
        Assert.Equal(1, poolB.CompletedWorkItemCount);
    }

    [Fact]
    public void QueueHigh_LateProducerIsAnotherPoolsWorker_EachPoolCountsItsItemOnce()
    {
        var queue = new GatedQueue();
        using var poolA = queue.CreatePool();
        using var poolB = TestPools.Create(workers: 1);
        using var done = new ManualResetEventSlim(false);
        bool aRan = false;
        queue.HoldNextEnqueue();
        poolB.Queue(() =>
        {
            poolA.Queue(() => aRan = true, WorkItemPriority.High);
            done.Set();
        });
        Bounded.Wait(queue.Held, "pool B's item to reach pool A's enqueue");
        poolA.Dispose();
        queue.Release();
        Bounded.Wait(done, "pool B's item");
        Assert.True(aRan);
        Assert.Equal(1, poolA.CompletedWorkItemCount);
        Bounded.Until(() => poolB.CompletedWorkItemCount == 1, "B counts its item");
        poolB.Queue(() => { });
        Bounded.Until(() => poolB.CompletedWorkItemCount == 2, "B counts its next item");
    }

    [Fact]
    public void Dispose_OnAPlainThreadThatRunsAGroupTurn_CallersContextsComeBackExactly()
    {
        var local = new AsyncLocal<string?>();
        var failures = new System.Collections.Concurrent.ConcurrentQueue<string>();
        var callerContext = new SynchronizationContext();
        Bounded.Run(() =>
        {
            for (int round = 0; round < 2; round++)
            {
                SlimThreadPool? poolRef = null;
                SlimThreadPoolGroup? groupRef = null;
                int ran = 0;
                var pool = new SlimThreadPool(new SlimThreadPoolOptions
                {
                    WorkerCount = 1,
                    Queue = WorkQueueKind.Locked,
                    StarvationTimeout = Timeout.InfiniteTimeSpan,
                    OnThreadExit = _ =>
                    {
                        SlimThreadPoolGroup g = Volatile.Read(ref groupRef)!;
                        g.SynchronizationContext.Post(_ =>
                        {
                            Interlocked.Increment(ref ran);
                            if (local.Value is not null) failures.Enqueue($"round {round}: first item saw {local.Value}");
                            if (SynchronizationContext.Current != g.SynchronizationContext) failures.Enqueue($"round {round}: first item not under the group's context");
                            local.Value = "first item's";
                            SynchronizationContext.SetSynchronizationContext(new SynchronizationContext());
                            ExecutionContext.SuppressFlow();
                        }, null);
                        g.SynchronizationContext.Post(_ =>
                        {
                            Interlocked.Increment(ref ran);
                            if (local.Value is not null) failures.Enqueue($"round {round}: second item saw {local.Value}");
                            if (ExecutionContext.IsFlowSuppressed()) failures.Enqueue($"round {round}: second item saw a suppressed flow");
                            if (SynchronizationContext.Current != g.SynchronizationContext) failures.Enqueue($"round {round}: second item not under the group's context");
                        }, null);
                    },
                });
                Volatile.Write(ref poolRef, pool);
                SlimThreadPoolGroup group = pool.CreateGroup();
                Volatile.Write(ref groupRef, group);
                pool.Queue(() => { });

                local.Value = "caller's";
                SynchronizationContext.SetSynchronizationContext(callerContext);
                AsyncFlowControl flow = ExecutionContext.SuppressFlow();
                pool.Dispose();
                if (local.Value != "caller's") failures.Enqueue($"round {round}: caller's AsyncLocal now {local.Value}");
                if (!ExecutionContext.IsFlowSuppressed()) failures.Enqueue($"round {round}: caller's flow no longer suppressed");
                if (SynchronizationContext.Current != callerContext) failures.Enqueue($"round {round}: caller's SynchronizationContext changed");
                flow.Undo();
                if (Volatile.Read(ref ran) != 2) failures.Enqueue($"round {round}: ran {ran} of 2");
                try
                {
                    group.SynchronizationContext.Send(_ => failures.Enqueue($"round {round}: Send ran inline after Dispose"), null);
                }
                catch (ObjectDisposedException)
                {
                }

                if (pool.CompletedWorkItemCount != 3) failures.Enqueue($"round {round}: pool counted {pool.CompletedWorkItemCount} of 3");
                if (group.CompletedWorkItemCount != 2) failures.Enqueue($"round {round}: group counted {group.CompletedWorkItemCount} of 2");
                local.Value = null;
                SynchronizationContext.SetSynchronizationContext(null);
            }
        }, "two disposes on one plain thread");
        Assert.Empty(failures);
    }

    [Fact]
    public void Dispose_FromAGroupItemRunningATurnATicketAndAPlainLeftover_CountsEachUserItemOnce()
    {
        var pool = TestPools.Create(workers: 1, o => o.MaxWorkers = 1);
        SlimThreadPoolGroup g1 = pool.CreateGroup();
        SlimThreadPoolGroup g2 = pool.CreateGroup();
        using var started = new ManualResetEventSlim();
        using var queued = new ManualResetEventSlim();
        using var done = new ManualResetEventSlim();
        bool reentered = false, g1CurrentAfter = false, g1CtxAfter = false, g2CtxAfterReentry = false;
        int ran = 0;
        g1.Queue(() =>
        {
            int t = Environment.CurrentManagedThreadId;
            started.Set();
            queued.Wait(Bounded.Timeout);
            pool.Dispose();
            g1CtxAfter = SynchronizationContext.Current == g1.SynchronizationContext;
            g1.SynchronizationContext.Send(_ => g1CurrentAfter = Environment.CurrentManagedThreadId == t, null);
            done.Set();
        });
        Bounded.Wait(started, "g1's item");
        g2.Queue(() =>
        {
            Interlocked.Increment(ref ran);
            g1.SynchronizationContext.Send(_ => reentered = SynchronizationContext.Current == g1.SynchronizationContext, null);
            g2CtxAfterReentry = SynchronizationContext.Current == g2.SynchronizationContext;
        });
        g2.Queue(() => Interlocked.Increment(ref ran));
        pool.Queue(() => Interlocked.Increment(ref ran));
        pool.Queue(() => Interlocked.Increment(ref ran), WorkItemPriority.High);
        queued.Set();
        Bounded.Wait(done, "g1's item after Dispose");
        Assert.Equal(4, Volatile.Read(ref ran));
        Assert.True(reentered, "g1 re-entered under its context");
        Assert.True(g2CtxAfterReentry, "g2's context back after the re-entry");
        Assert.True(g1CtxAfter, "g1's context back after Dispose");
        Assert.True(g1CurrentAfter, "g1 current again after Dispose");
        Bounded.Until(() => pool.CompletedWorkItemCount >= 5, "the pool counts every user item");
        Thread.Sleep(50);
        Assert.Equal(5, pool.CompletedWorkItemCount);
        Assert.Equal(1, g1.CompletedWorkItemCount);
        Assert.Equal(2, g2.CompletedWorkItemCount);
    }

    [Fact]
    public void GroupQueue_FlowingPoolItemLeavesSuppressedFlowAndAsyncLocal_NextItemOfTheTurnSeesNeither()
    {
        var local = new AsyncLocal<string?>();
        using var pool = TestPools.Create(workers: 1, o => o.FlowExecutionContext = true);
        SlimThreadPoolGroup g = pool.CreateGroup();
        using var gate = new ManualResetEventSlim();
        using var done = new ManualResetEventSlim();
        string? seenLocal = "not run";
        bool seenSuppressed = true;
        g.Queue(() => gate.Wait(Bounded.Timeout));
        g.Queue(() =>
        {
            local.Value = "first";
            ExecutionContext.SuppressFlow();
        });
        using (ExecutionContext.SuppressFlow())
        {
            g.Queue(() =>
            {
                seenLocal = local.Value;
                seenSuppressed = ExecutionContext.IsFlowSuppressed();
                done.Set();
            });
        }

        gate.Set();
        Bounded.Wait(done, "the third item");
        Assert.Null(seenLocal);
        Assert.False(seenSuppressed);
    }
}
