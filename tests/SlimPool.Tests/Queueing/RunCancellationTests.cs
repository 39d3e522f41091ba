using SlimPool.Tests.Infrastructure;

namespace SlimPool.Tests.Queueing;

public sealed class RunCancellationTests
{
    [Fact]
    public async Task Run_TokenAlreadyCancelled_EndsCancelledWithoutRunning()
    {
        using SlimThreadPool pool = TestPools.Create();
        bool ran = false;
        var cancelled = new CancellationToken(canceled: true);

        Task action = pool.Run(() => ran = true, cancelled);
        Task<int> function = pool.Run(() => 42, cancelled);
        Task flow = pool.Run(() => Task.CompletedTask, cancelled);
        Task<int> flowWithResult = pool.Run(() => Task.FromResult(42), cancelled);

        foreach (Task task in new[] { action, function, flow, flowWithResult })
        {
            await Assert.ThrowsAnyAsync<OperationCanceledException>(() => task.WaitAsync(Bounded.Timeout));
            Assert.True(task.IsCanceled);
        }

        Assert.False(ran);
    }

    [Fact]
    public async Task Run_TokenCancelledWhileQueued_EndsCancelledWithoutRunning()
    {
        using SlimThreadPool pool = TestPools.Create(workers: 1);
        var blocked = new BlockedWorkers(pool);
        using var cancellation = new CancellationTokenSource();
        bool ran = false;

        Task queued = pool.Run(() => ran = true, cancellation.Token);
        await cancellation.CancelAsync();
        blocked.Release();

        await Assert.ThrowsAnyAsync<OperationCanceledException>(() => queued.WaitAsync(Bounded.Timeout));
        Assert.True(queued.IsCanceled);
        Assert.False(ran);
    }

    [Fact]
    public async Task Run_LiveToken_RunsAndCompletes()
    {
        using SlimThreadPool pool = TestPools.Create();
        using var cancellation = new CancellationTokenSource();

        int result = await pool.Run(() => 7, cancellation.Token).WaitAsync(Bounded.Timeout);

        Assert.Equal(7, result);
    }
}
