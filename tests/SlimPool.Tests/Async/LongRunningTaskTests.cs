using SlimPool.Tests.Infrastructure;

namespace SlimPool.Tests.Async;

/// <summary>
/// A long-running task of the pool's TaskScheduler runs on a thread of its own, as on the default scheduler, and is the
/// pool's work like any other task: <c>CompletedWorkItemCount</c> counts it, <c>WaitForIdleAsync</c> waits for it, and once
/// the pool no longer accepts tasks it runs on the built-in pool, as every task the scheduler refuses does (guarantee 25).
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

    // It ran on a new thread named after the pool, after Dispose had returned (found by an adversarial hunt).
    [Theory]
    [InlineData(ShutdownMode.Drain)]
    [InlineData(ShutdownMode.Abandon)]
    public void TaskScheduler_LongRunningTaskAfterTheShutdown_RunsOnTheBuiltInPool(ShutdownMode mode)
    {
        SlimThreadPool pool = TestPools.Create(workers: 1);
        Bounded.Wait(pool.ShutdownAsync(mode), "the shutdown");

        Task<bool> late = Task.Factory.StartNew(static () => Thread.CurrentThread.IsThreadPoolThread, CancellationToken.None, TaskCreationOptions.LongRunning, pool.TaskScheduler);

        Assert.True(Bounded.Result(late, "the late long-running task"), "a long-running task made after the shutdown did not run on the built-in pool");
        Assert.Equal(0, pool.CompletedWorkItemCount);
    }
}
