using SlimPool.Tests.Infrastructure;

namespace SlimPool.Tests.Groups;

/// <summary>A group's <c>Run</c> shapes and <c>SwitchTo</c>: async flows whose every step is one of the group's items.</summary>
public sealed class GroupAsyncTests
{
    public static TheoryData<WorkQueueKind, IdleWaitKind> Configurations() => TestPools.QueueAndIdleWaits();

    [Theory]
    [MemberData(nameof(Configurations))]
    public async Task Run_AsyncFlowsInASerialGroup_StepsNeverOverlapAndRunOnThePool(WorkQueueKind queue, IdleWaitKind idleWait)
    {
        using SlimThreadPool pool = TestPools.Create(queue, idleWait, 2);
        using SlimThreadPoolGroup group = pool.CreateGroup();
        int inside = 0, most = 0, offPool = 0, steps = 0;

        async Task Flow()
        {
            for (int i = 0; i < 20; i++)
            {
                int now = Interlocked.Increment(ref inside);
                Atomic.Max(ref most, now);
                if (!pool.IsOwnWorker)
                {
                    Interlocked.Increment(ref offPool);
                }

                Thread.SpinWait(200);
                Interlocked.Increment(ref steps);
                Interlocked.Decrement(ref inside);
                await Task.Yield(); // the continuation is the group's next item, not this worker's to keep running
            }
        }

        await Task.WhenAll(Enumerable.Range(0, 8).Select(_ => group.Run(Flow))).WaitAsync(Bounded.Timeout);

        Assert.Equal(8 * 20, steps);
        Assert.Equal(1, most);
        Assert.Equal(0, offPool);
    }

    [Fact]
    public async Task Run_EachShape_ReturnsTheResultOrTheException()
    {
        using SlimThreadPool pool = TestPools.Create(2);
        using SlimThreadPoolGroup group = pool.CreateGroup();
        bool ran = false;

        await group.Run(() => { ran = true; }).WaitAsync(Bounded.Timeout);
        Assert.True(ran);
        Assert.Equal(42, await group.Run(() => 42).WaitAsync(Bounded.Timeout));
        Assert.Equal(7, await group.Run(async () => { await Task.Yield(); return 7; }).WaitAsync(Bounded.Timeout));
        await Assert.ThrowsAsync<InvalidOperationException>(() => group.Run(async () =>
        {
            await Task.Yield();
            throw new InvalidOperationException("from the flow");
        }).WaitAsync(Bounded.Timeout));

        using var cancelled = new CancellationTokenSource();
        cancelled.Cancel();
        Task skipped = group.Run(() => { ran = false; }, cancelled.Token);
        await Assert.ThrowsAnyAsync<OperationCanceledException>(() => skipped.WaitAsync(Bounded.Timeout));
        Assert.True(ran);
    }

    [Fact]
    public void Run_BadInputOrAShutDownGroup_ThrowsNamingTheArgumentOrTheGroup()
    {
        using SlimThreadPool pool = TestPools.Create(1);
        SlimThreadPoolGroup group = pool.CreateGroup();
        Assert.Equal("action", Assert.Throws<ArgumentNullException>(() => { _ = group.Run((Action)null!); }).ParamName);
        Assert.Equal("function", Assert.Throws<ArgumentNullException>(() => { _ = group.Run((Func<Task>)null!); }).ParamName);

        group.Dispose();
        var disposed = Assert.Throws<ObjectDisposedException>(() => { _ = group.Run(() => 1); });
        Assert.Contains(group.Name, disposed.Message, StringComparison.Ordinal);
        Assert.Throws<ObjectDisposedException>(() => group.SwitchTo().GetAwaiter().GetResult());
    }

    [Theory]
    [MemberData(nameof(Configurations))]
    public async Task SwitchTo_FromOutsideWhileAnItemHoldsTheSerialGroup_ContinuesAfterItAsAGroupItem(WorkQueueKind queue, IdleWaitKind idleWait)
    {
        using SlimThreadPool pool = TestPools.Create(queue, idleWait, 2);
        using SlimThreadPoolGroup group = pool.CreateGroup();
        using var holding = new ManualResetEventSlim();
        using var release = new ManualResetEventSlim();
        int holderDone = 0;
        group.Queue(() =>
        {
            holding.Set();
            release.Wait(Bounded.Timeout);
            Volatile.Write(ref holderDone, 1);
        });
        Bounded.Wait(holding, "the item holding the group");

        Assert.False(group.SwitchTo().GetAwaiter().IsCompleted, "outside the group the switch must queue the continuation");
        var switched = new TaskCompletionSource<(bool AfterHolder, bool OnPool, bool InGroupAtOnce)>(TaskCreationOptions.RunContinuationsAsynchronously);
        Task flow = Task.Run(async () =>
        {
            await group.SwitchTo();
            switched.SetResult((Volatile.Read(ref holderDone) == 1, pool.IsOwnWorker, group.SwitchTo().GetAwaiter().IsCompleted));
        });

        await Task.Delay(50);
        Assert.False(switched.Task.IsCompleted, "the continuation ran while another item held the serial group");
        release.Set();
        (bool afterHolder, bool onPool, bool inGroupAtOnce) = await switched.Task.WaitAsync(Bounded.Timeout);
        await flow.WaitAsync(Bounded.Timeout);
        Assert.True(afterHolder);
        Assert.True(onPool);
        Assert.True(inGroupAtOnce, "inside one of the group's items the switch completes at once");
    }

    [Theory]
    [MemberData(nameof(Configurations))]
    public async Task QueueAsync_PoolFull_WaitsWithoutBlockingThenRunsAfterTheItemsAhead(WorkQueueKind queue, IdleWaitKind idleWait)
    {
        using SlimThreadPool pool = TestPools.Create(1, o => { o.Queue = queue; o.IdleWait = idleWait; o.BoundedCapacity = 3; });
        using SlimThreadPoolGroup group = pool.CreateGroup();
        var order = new System.Collections.Concurrent.ConcurrentQueue<int>();
        using (var blocked = new BlockedWorkers(pool))
        {
            group.Queue(() => order.Enqueue(1));
            group.Queue(() => order.Enqueue(2)); // the pool's three slots: the two items and the group's turn
            ValueTask waiting = group.QueueAsync(() => order.Enqueue(3));
            await Task.Delay(50);
            Assert.False(waiting.IsCompleted, "QueueAsync completed while the pool had no room");
            blocked.Release();
            await waiting.AsTask().WaitAsync(Bounded.Timeout);
        }

        await group.WaitForIdleAsync().WaitAsync(Bounded.Timeout);
        Assert.Equal([1, 2, 3], order);
    }

    [Fact]
    public async Task QueueAsync_PoolShutsDownOrTheTokenIsCancelledWhileWaiting_FailsAccordingly()
    {
        var pool = TestPools.Create(1, o => o.BoundedCapacity = 1);
        SlimThreadPoolGroup group = pool.CreateGroup();
        var blocked = new BlockedWorkers(pool);
        group.Queue(() => { });
        using var cancel = new CancellationTokenSource();
        ValueTask cancelled = group.QueueAsync(() => { }, cancel.Token);
        ValueTask refused = group.QueueAsync(() => { });
        cancel.Cancel();
        await Assert.ThrowsAnyAsync<OperationCanceledException>(() => cancelled.AsTask().WaitAsync(Bounded.Timeout));

        Task<ShutdownResult> shutdown = pool.ShutdownAsync(ShutdownMode.Abandon);
        var disposed = await Assert.ThrowsAsync<ObjectDisposedException>(() => refused.AsTask().WaitAsync(Bounded.Timeout));
        Assert.Contains(group.Name, disposed.Message, StringComparison.Ordinal);
        blocked.Release();
        ShutdownResult result = await shutdown.WaitAsync(Bounded.Timeout);
        Assert.Equal(1, result.AbandonedCount); // the one item accepted; neither waiting call's item was
        Assert.Equal("callback", Assert.Throws<ArgumentNullException>(() => { _ = group.QueueAsync((Action)null!); }).ParamName);
    }

    [Theory]
    [MemberData(nameof(Configurations))]
    public async Task WaitForIdleAsync_AnItemStillRunning_CompletesOnlyAfterEveryAcceptedItemFinished(WorkQueueKind queue, IdleWaitKind idleWait)
    {
        using SlimThreadPool pool = TestPools.Create(queue, idleWait, 2);
        using SlimThreadPoolGroup group = pool.CreateGroup();
        Assert.True(group.WaitForIdleAsync().IsCompletedSuccessfully, "a group that never had an item is idle");

        using var release = new ManualResetEventSlim();
        int ran = 0;
        group.Queue(() => { release.Wait(Bounded.Timeout); Interlocked.Increment(ref ran); });
        for (int i = 0; i < 50; i++)
        {
            group.Queue(() => Interlocked.Increment(ref ran));
        }

        Task idle = group.WaitForIdleAsync();
        using var cancel = new CancellationTokenSource();
        Task cancelledWait = group.WaitForIdleAsync(cancel.Token);
        cancel.Cancel();
        await Assert.ThrowsAnyAsync<OperationCanceledException>(() => cancelledWait.WaitAsync(Bounded.Timeout));
        await Task.Delay(50);
        Assert.False(idle.IsCompleted, "idle while an item still ran and fifty waited");

        release.Set();
        await idle.WaitAsync(Bounded.Timeout);
        Assert.Equal(51, Volatile.Read(ref ran));
        Assert.Equal(0, group.PendingWorkItemCount);
    }
}
