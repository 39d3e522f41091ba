using SlimPool.Tests.Infrastructure;

namespace SlimPool.Tests.Lifecycle;

public sealed class WaitForIdleTests
{
    [Fact]
    public void WaitForIdleAsync_IdlePool_IsAlreadyComplete()
    {
        using SlimThreadPool pool = TestPools.Create();
        Bounded.Until(() => pool.BusyWorkerCount == 0, "the workers to settle");

        Assert.True(pool.WaitForIdleAsync().IsCompletedSuccessfully);
    }

    [Theory]
    [InlineData(1)]
    [InlineData(2)]
    [InlineData(4)]
    public async Task WaitForIdleAsync_AfterABurst_CompletesOnlyOnceEveryItemHasRun(int workers)
    {
        int items = StressSize.Pick(quick: 20_000, longRun: 2_000_000);
        var ledger = new Ledger(items);
        using SlimThreadPool pool = TestPools.Create(workers);
        for (int i = 0; i < items; i++)
        {
            pool.Queue(static s =>
            {
                Thread.SpinWait(20);
                ((LedgerEntry)s!).Mark();
            }, new LedgerEntry(ledger, i));
        }

        await pool.WaitForIdleAsync().WaitAsync(Bounded.Timeout);

        Assert.Equal(items, ledger.Total);
        ledger.AssertEachExactlyOnce();
        Assert.Equal(0, pool.PendingWorkItemCount);
    }

    [Fact]
    public async Task WaitForIdleAsync_WorkerRunning_WaitsForIt()
    {
        using SlimThreadPool pool = TestPools.Create(workers: 2);
        var blocked = new BlockedWorkers(pool);

        Task idle = pool.WaitForIdleAsync();
        Assert.False(idle.IsCompleted);
        Assert.Equal(2, pool.BusyWorkerCount);
        blocked.Release();

        await idle.WaitAsync(Bounded.Timeout);
        Assert.True(blocked.Finished);
    }

    [Fact]
    public async Task WaitForIdleAsync_TokenCancelled_EndsCancelled()
    {
        using SlimThreadPool pool = TestPools.Create(workers: 1);
        using var blocked = new BlockedWorkers(pool);
        using var cancellation = new CancellationTokenSource();

        Task idle = pool.WaitForIdleAsync(cancellation.Token);
        await cancellation.CancelAsync();

        await Assert.ThrowsAnyAsync<OperationCanceledException>(() => idle.WaitAsync(Bounded.Timeout));
        Assert.True(pool.WaitForIdleAsync(new CancellationToken(canceled: true)).IsCanceled);
    }

    [Fact]
    public async Task WaitForIdleAsync_PoolShutDown_Completes()
    {
        SlimThreadPool pool = TestPools.Create();
        await pool.DisposeAsync();

        await pool.WaitForIdleAsync().WaitAsync(Bounded.Timeout);
        Assert.Equal(0, pool.BusyWorkerCount);
    }

    [Fact]
    public async Task WaitForIdleAsync_ManyWaitersWhileItemsFlow_AllComplete()
    {
        using SlimThreadPool pool = TestPools.Create(workers: 2);
        var waiters = new List<Task>();
        for (int round = 0; round < 50; round++)
        {
            for (int i = 0; i < 100; i++)
            {
                pool.Queue(() => Thread.SpinWait(100));
            }

            waiters.Add(pool.WaitForIdleAsync());
        }

        await Task.WhenAll(waiters).WaitAsync(Bounded.Timeout);
        Assert.Equal(5_000, pool.CompletedWorkItemCount);
    }
}
