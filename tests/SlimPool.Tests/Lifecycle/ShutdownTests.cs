using SlimPool.Tests.Infrastructure;

namespace SlimPool.Tests.Lifecycle;

public sealed class ShutdownTests
{
    [Fact]
    public async Task ShutdownAsync_Drain_RunsEveryAcceptedItem()
    {
        const int Items = 2_000;
        var ledger = new Ledger(Items);
        SlimThreadPool pool = TestPools.Create(workers: 1);
        for (int i = 0; i < Items; i++)
        {
            int id = i;
            pool.Queue(() => ledger.Mark(id));
        }

        ShutdownResult result = await pool.ShutdownAsync(ShutdownMode.Drain).WaitAsync(Bounded.Timeout);

        Assert.Equal(ShutdownMode.Drain, result.Mode);
        Assert.Equal(0, result.AbandonedCount);
        Assert.Empty(result.AbandonedItems);
        ledger.AssertEachExactlyOnce();
    }

    [Fact]
    public async Task ShutdownAsync_Abandon_FinishesStartedItemsAndHandsBackTheRest()
    {
        const int Items = 100;
        var ledger = new Ledger(Items);
        SlimThreadPool pool = TestPools.Create(workers: 2);
        var blocked = new BlockedWorkers(pool);
        for (int i = 0; i < Items; i++)
        {
            pool.Queue(static s => ((LedgerEntry)s!).Mark(), new LedgerEntry(ledger, i));
        }

        Task<ShutdownResult> shutdown = pool.ShutdownAsync(ShutdownMode.Abandon);
        Assert.False(shutdown.IsCompleted); // the started items are still running
        blocked.Release();
        ShutdownResult result = await shutdown.WaitAsync(Bounded.Timeout);

        Assert.True(blocked.Finished, "the items already started must finish");
        Assert.Equal(ShutdownMode.Abandon, result.Mode);
        Assert.Equal(0, ledger.Total);
        Assert.Equal(Items, result.AbandonedCount);
        Assert.All(result.AbandonedItems, item => Assert.IsType<LedgerEntry>(item.State));

        // Handed back, they are the caller's: running them runs each exactly once.
        foreach (AbandonedWorkItem item in result.AbandonedItems)
        {
            item.Run();
        }

        ledger.AssertEachExactlyOnce();
    }

    [Theory]
    [InlineData(false)]
    [InlineData(true)]
    public async Task AbandonedWorkItemRun_ItemWhoseTokenWasCancelled_SkipsItWithoutCountingItOnThePool(bool inAGroup)
    {
        SlimThreadPool pool = TestPools.Create(workers: 1);
        SlimThreadPoolGroup group = pool.CreateGroup();
        var blocked = new BlockedWorkers(pool);
        using var cancellation = new CancellationTokenSource();
        int ran = 0;
        if (inAGroup)
        {
            group.Queue(() => Interlocked.Increment(ref ran), cancellation.Token);
        }
        else
        {
            pool.Queue(() => Interlocked.Increment(ref ran), cancellation.Token);
        }

        await cancellation.CancelAsync();
        Task<ShutdownResult> shutdown = pool.ShutdownAsync(ShutdownMode.Abandon);
        blocked.Release();
        ShutdownResult result = await shutdown.WaitAsync(Bounded.Timeout);
        AbandonedWorkItem item = Assert.Single(result.AbandonedItems);

        item.Run(); // the caller's now: the token still skips it, but the skip is not the pool's

        Assert.Equal(0, Volatile.Read(ref ran));
        Assert.Equal(0, pool.CancelledWorkItemCount);
        Assert.Equal(0, group.CancelledWorkItemCount);
    }

    [Fact]
    public async Task ShutdownAsync_DrainTokenCancelled_TurnsIntoAbandon()
    {
        var ledger = new Ledger(50);
        SlimThreadPool pool = TestPools.Create(workers: 2);
        var blocked = new BlockedWorkers(pool);
        ledger.QueueEach(pool);

        using var cancellation = new CancellationTokenSource();
        Task<ShutdownResult> shutdown = pool.ShutdownAsync(ShutdownMode.Drain, cancellation.Token);
        await cancellation.CancelAsync();
        blocked.Release();
        ShutdownResult result = await shutdown.WaitAsync(Bounded.Timeout);

        Assert.Equal(ShutdownMode.Abandon, result.Mode);
        Assert.Equal(ledger.Count, result.AbandonedCount + ledger.Total);
        Assert.Equal(0, ledger.Total);
    }

    [Fact]
    public async Task ShutdownAsync_TokenAlreadyCancelled_AbandonsAtOnce()
    {
        var ledger = new Ledger(10);
        SlimThreadPool pool = TestPools.Create(workers: 1);
        var blocked = new BlockedWorkers(pool);
        ledger.QueueEach(pool);

        Task<ShutdownResult> shutdown = pool.ShutdownAsync(ShutdownMode.Drain, new CancellationToken(canceled: true));
        blocked.Release();
        ShutdownResult result = await shutdown.WaitAsync(Bounded.Timeout);

        Assert.False(shutdown.IsCanceled);
        Assert.Equal(ShutdownMode.Abandon, result.Mode);
        Assert.Equal(10, result.AbandonedCount);
    }

    [Fact]
    public async Task ShutdownAsync_Abandon_HandsBackTasksThatCompleteWhenRun()
    {
        SlimThreadPool pool = TestPools.Create(workers: 1);
        var blocked = new BlockedWorkers(pool);
        Task<int> task = pool.Run(() => 42);

        Task<ShutdownResult> shutdown = pool.ShutdownAsync(ShutdownMode.Abandon);
        blocked.Release();
        ShutdownResult result = await shutdown.WaitAsync(Bounded.Timeout);

        Assert.Equal(1, result.AbandonedCount);
        Assert.False(task.IsCompleted);
        result.AbandonedItems[0].Run();
        Assert.Equal(42, await task.WaitAsync(Bounded.Timeout));
    }

    [Fact]
    public async Task ShutdownAsync_AfterShutdown_QueueThrowsAndTryQueueReturnsFalse()
    {
        SlimThreadPool pool = TestPools.Create();
        await pool.ShutdownAsync(ShutdownMode.Abandon).WaitAsync(Bounded.Timeout);

        Assert.Throws<ObjectDisposedException>(() => pool.Queue(() => { }));
        Assert.False(pool.TryQueue(() => { }));
        await Assert.ThrowsAsync<ObjectDisposedException>(async () => await pool.QueueAsync(() => { }));
    }

    [Fact]
    public async Task ShutdownAsync_CalledAgain_ReturnsTheSameOutcome()
    {
        SlimThreadPool pool = TestPools.Create();
        ShutdownResult first = await pool.ShutdownAsync(ShutdownMode.Drain).WaitAsync(Bounded.Timeout);
        ShutdownResult second = await pool.ShutdownAsync(ShutdownMode.Abandon).WaitAsync(Bounded.Timeout);
        pool.Dispose();

        Assert.Same(first, second);
        Assert.Equal(ShutdownMode.Drain, second.Mode);
    }

    [Theory]
    [InlineData((ShutdownMode)2)]
    [InlineData((ShutdownMode)(-1))]
    public void ShutdownAsync_UndefinedMode_ThrowsNamingTheArgument(ShutdownMode mode)
    {
        using SlimThreadPool pool = TestPools.Create();

        var exception = Assert.Throws<ArgumentOutOfRangeException>(() => { _ = pool.ShutdownAsync(mode); });
        Assert.Equal("mode", exception.ParamName);
    }

    [Fact]
    public async Task ShutdownAsync_FromAWorker_CompletesAfterTheWorkersExit()
    {
        SlimThreadPool pool = TestPools.Create(workers: 2);
        var ledger = new Ledger(100);
        Task<ShutdownResult> fromWorker = pool.Run(() =>
        {
            ledger.QueueEach(pool);

            return pool.ShutdownAsync(ShutdownMode.Drain);
        });

        ShutdownResult result = await fromWorker.WaitAsync(Bounded.Timeout); // Run unwraps the returned task

        Assert.Equal(ShutdownMode.Drain, result.Mode);
        ledger.AssertEachExactlyOnce();
        Assert.Equal(0, pool.LiveWorkerCount);
    }

    [Fact]
    public async Task DisposeAsync_AfterAbandon_DoesNotRunTheAbandonedItems()
    {
        var ledger = new Ledger(20);
        SlimThreadPool pool = TestPools.Create(workers: 1);
        var blocked = new BlockedWorkers(pool);
        ledger.QueueEach(pool);

        Task<ShutdownResult> shutdown = pool.ShutdownAsync(ShutdownMode.Abandon);
        blocked.Release();
        await pool.DisposeAsync().AsTask().WaitAsync(Bounded.Timeout);
        ShutdownResult result = await shutdown.WaitAsync(Bounded.Timeout);

        Assert.Equal(0, ledger.Total);
        Assert.Equal(20, result.AbandonedCount);
    }
}
