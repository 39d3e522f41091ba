using SlimPool.Tests.Infrastructure;

namespace SlimPool.Tests.Async;

/// <summary>
/// A long-running task of the pool's TaskScheduler runs on a thread of its own, as on the default scheduler, and is the
/// pool's work like any other task: <c>CompletedWorkItemCount</c> counts it, <c>WaitForIdleAsync</c> and the shutdown
/// wait for it, and once the pool no longer accepts tasks it runs on the built-in pool, as every task the scheduler
/// refuses does (guarantee 25).
/// </summary>
public sealed class LongRunningTaskTests
{
    // It was never counted: a pool that had run three tasks of its schedulers read 2 (found by an adversarial hunt).
    [Fact]
    public void CompletedWorkItemCount_LongRunningTasksOfThePoolAndAGroup_CountsEachOnce()
    {
        using SlimThreadPool pool = TestPools.Create(workers: 1);
        SlimThreadPoolGroup group = pool.CreateGroup();

        long CountAfter(TaskScheduler scheduler, TaskCreationOptions options)
        {
            Bounded.Wait(Task.Factory.StartNew(static () => { }, CancellationToken.None, options, scheduler), "the task");
            Bounded.Wait(pool.WaitForIdleAsync(), "the pool to go idle");
            return pool.CompletedWorkItemCount;
        }

        long plain = CountAfter(pool.TaskScheduler, TaskCreationOptions.None);
        long groupLongRunning = CountAfter(group.TaskScheduler, TaskCreationOptions.LongRunning);
        long poolLongRunning = CountAfter(pool.TaskScheduler, TaskCreationOptions.LongRunning);

        Assert.Equal((1, 2, 3), (plain, groupLongRunning, poolLongRunning));
    }

    // Dispose returned while it still ran on a thread named after the pool, and the pool's count changed after (found by
    // an adversarial review): a drain waits for the items running, these included.
    [Theory]
    [InlineData(null)]
    [InlineData(ShutdownMode.Drain)]
    [InlineData(ShutdownMode.Abandon)]
    public void Shutdown_LongRunningTaskRunning_WaitsForItAndItsCount(ShutdownMode? mode)
    {
        SlimThreadPool pool = TestPools.Create(workers: 1);
        using var started = new ManualResetEventSlim();
        int finished = 0;
        Task longRunning = Task.Factory.StartNew(
            () =>
            {
                started.Set();
                Thread.Sleep(200);
                Volatile.Write(ref finished, 1);
            },
            CancellationToken.None,
            TaskCreationOptions.LongRunning,
            pool.TaskScheduler);
        Bounded.Wait(started, "the long-running task to start");

        if (mode is { } shutdownMode)
        {
            Bounded.Wait(pool.ShutdownAsync(shutdownMode), "the shutdown");
        }
        else
        {
            Bounded.Run(pool.Dispose, "Dispose");
        }

        (int finishedAtReturn, long countAtReturn) = (Volatile.Read(ref finished), pool.CompletedWorkItemCount);
        Bounded.Wait(longRunning, "the long-running task");

        Assert.Equal((1, 1L), (finishedAtReturn, countAtReturn));
    }

    // A cancelled drain returns early, while items still run, and counts them in its result; it counted the workers' only,
    // so a long-running task accepted before it (running, or its thread started and its delegate not yet begun) started
    // or ran on after a result that said nothing was running (found by the composition test).
    [Fact]
    public void ShutdownAsync_CancelledWhileALongRunningTaskRuns_CountsItRunningInTheEarlyResult()
    {
        SlimThreadPool pool = TestPools.Create(workers: 1);
        using var started = new ManualResetEventSlim();
        using var release = new ManualResetEventSlim();
        Task longRunning = Task.Factory.StartNew(
            () =>
            {
                started.Set();
                release.Wait(Bounded.Timeout);
            },
            CancellationToken.None,
            TaskCreationOptions.LongRunning,
            pool.TaskScheduler);
        Bounded.Wait(started, "the long-running task to start");

        using var cancel = new CancellationTokenSource();
        Task<ShutdownResult> shutdown = pool.ShutdownAsync(ShutdownMode.Drain, cancel.Token);
        cancel.Cancel();
        ShutdownResult early = Bounded.Result(shutdown, "the cancelled drain's early result");
        release.Set();
        Bounded.Wait(longRunning, "the long-running task");

        Assert.Equal(ShutdownMode.Abandon, early.Mode);
        Assert.Equal(1, early.RunningWorkItemCount);
    }

    // One that disposes the pool itself: the shutdown cannot wait for the task that called it, nor that task for the
    // shutdown's end (it would wait for itself).
    [Fact]
    public void Dispose_FromALongRunningTask_ReturnsAndTheShutdownEndsWhenTheTaskDoes()
    {
        SlimThreadPool pool = TestPools.Create(workers: 1);
        Task longRunning = Task.Factory.StartNew(pool.Dispose, CancellationToken.None, TaskCreationOptions.LongRunning, pool.TaskScheduler);

        Bounded.Wait(longRunning, "the long-running task that disposes the pool");
        Bounded.Run(pool.Dispose, "Dispose from the test");
        Assert.True(pool.IsShutDown);
        Assert.Equal(1, pool.CompletedWorkItemCount);
    }

    // It ran on a new thread named after the pool, after Dispose had returned (found by an adversarial hunt).
    [Theory]
    [InlineData(ShutdownMode.Drain)]
    [InlineData(ShutdownMode.Abandon)]
    public void TaskScheduler_LongRunningTaskAfterTheShutdown_RunsOnTheBuiltInPool(ShutdownMode mode)
    {
        SlimThreadPool pool = TestPools.Create(workers: 1);
        if (mode is { } shutdownMode)
        {
            Bounded.Wait(pool.ShutdownAsync(shutdownMode), "the shutdown");
        }
        else
        {
            Bounded.Run(pool.Dispose, "Dispose");
        }


        Task<bool> late = Task.Factory.StartNew(static () => Thread.CurrentThread.IsThreadPoolThread, CancellationToken.None, TaskCreationOptions.LongRunning, pool.TaskScheduler);

        Assert.True(Bounded.Result(late, "the late long-running task"), "a long-running task made after the shutdown did not run on the built-in pool");
        Assert.Equal(0, pool.CompletedWorkItemCount);
    }
}
