using System.Diagnostics;
using SlimPool.Tests.Infrastructure;

namespace SlimPool.Tests.Async;

/// <summary>
/// The shutdown's wait for the long-running tasks of the pool's TaskScheduler (guarantee 4) meets those tasks calling the
/// shutdown themselves: nothing deadlocks, a cancelled shutdown still returns at once (4f), and one finished from such a
/// task still waits for the others (found by an adversarial review of the first version, which waited under the
/// shutdown's own lock and not for the other tasks when the finish ran on one of them).
/// </summary>
public sealed class LongRunningShutdownTests
{
    private static Task StartLongRunning(SlimThreadPool pool, Action body) =>
        Task.Factory.StartNew(body, CancellationToken.None, TaskCreationOptions.LongRunning, pool.TaskScheduler);

    // Another thread's Dispose waits for the long-running task; the task then calls ShutdownAsync with a cancelled token
    // (guarantee 4f: it returns without waiting for running items). It deadlocked: the wait held the finish's lock.
    [Fact]
    public void CancelledShutdownAsync_FromALongRunningTaskWhileAnotherThreadDisposes_Returns()
    {
        SlimThreadPool pool = TestPools.Create(workers: 1);
        using var started = new ManualResetEventSlim();
        using var go = new ManualResetEventSlim();
        using var returned = new ManualResetEventSlim();
        Task longRunning = StartLongRunning(pool, () =>
        {
            started.Set();
            go.Wait(TimeSpan.FromSeconds(30));
            _ = pool.ShutdownAsync(ShutdownMode.Drain, new CancellationToken(canceled: true));
            returned.Set();
        });
        Bounded.Wait(started, "the long-running task to start");

        var disposer = new Thread(pool.Dispose) { IsBackground = true };
        disposer.Start();
        Bounded.Until(() => pool.IsShutDown, "the shutdown to begin");
        Thread.Sleep(500); // the workers exit and the finish waits for the long-running task
        go.Set();

        Assert.True(returned.Wait(TimeSpan.FromSeconds(10)), "ShutdownAsync(Drain, cancelled token) called on a long-running task did not return within 10 s while another thread disposed the pool (deadlock)");
        Assert.True(disposer.Join(TimeSpan.FromSeconds(10)), "Dispose did not return");
        Bounded.Wait(longRunning, "the long-running task");
    }

    // A cancelled drain returns without waiting for running items (guarantee 4f); a long-running task is a running item.
    [Fact]
    public void CancelledDrain_WhileALongRunningTaskRuns_ReturnsWithoutWaitingForIt()
    {
        SlimThreadPool pool = TestPools.Create(workers: 1);
        using var started = new ManualResetEventSlim();
        using var release = new ManualResetEventSlim();
        Task longRunning = StartLongRunning(pool, () =>
        {
            started.Set();
            release.Wait(TimeSpan.FromSeconds(30));
        });
        Bounded.Wait(started, "the long-running task to start");

        using var cts = new CancellationTokenSource();
        Task<ShutdownResult> shutdown = pool.ShutdownAsync(ShutdownMode.Drain, cts.Token);
        Thread.Sleep(500); // the worker exits; the finish waits for the long-running task under its lock
        cts.Cancel();
        bool returnedEarly = ((IAsyncResult)shutdown).AsyncWaitHandle.WaitOne(TimeSpan.FromSeconds(5));
        release.Set();
        Bounded.Wait(longRunning, "the long-running task");
        Bounded.Wait(shutdown, "the shutdown");
        pool.Dispose();

        Assert.True(returnedEarly, "A cancelled ShutdownAsync(Drain) did not return within 5 s of the cancellation while a long-running task ran (it waited for the running task)");
    }

    // One long-running task starts the abandon; with the workers gone already, the finish ran on that task's own thread and
    // waited for none of the others.
    [Fact]
    public void Abandon_FromALongRunningTask_TheShutdownWaitsForTheOtherLongRunningTasks()
    {
        var stopwatch = Stopwatch.StartNew();
        int rounds = 0, failures = 0;
        bool inlineAtFailure = false;
        while (stopwatch.Elapsed < TimeSpan.FromSeconds(8) && failures == 0)
        {
            rounds++;
            SlimThreadPool pool = TestPools.Create(workers: 1, name: "AbandonFromLongRunning");
            using var otherStarted = new ManualResetEventSlim();
            using var release = new ManualResetEventSlim();
            int otherDone = 0;
            Task other = StartLongRunning(pool, () =>
            {
                otherStarted.Set();
                release.Wait(TimeSpan.FromSeconds(30));
                Volatile.Write(ref otherDone, 1);
            });
            Bounded.Wait(otherStarted, "the other long-running task to start");
            Task<(Task<ShutdownResult>, bool)> caller = Task.Factory.StartNew(
                () => { Task<ShutdownResult> t = pool.ShutdownAsync(ShutdownMode.Abandon); return (t, t.IsCompleted); },
                CancellationToken.None,
                TaskCreationOptions.LongRunning,
                pool.TaskScheduler);
            (Task<ShutdownResult> shutdown, bool completedInline) = Bounded.Result(caller, "the long-running task that abandons");
            bool completed = ((IAsyncResult)shutdown).AsyncWaitHandle.WaitOne(TimeSpan.FromMilliseconds(100));
            if (completed && Volatile.Read(ref otherDone) == 0)
            {
                failures++;
                inlineAtFailure = completedInline;
            }

            release.Set();
            Bounded.Wait(other, "the other long-running task");
            Bounded.Wait(shutdown, "the shutdown");
            pool.Dispose();
        }

        Assert.True(failures == 0, $"ShutdownAsync(Abandon) called from a long-running task completed while another long-running task of the pool still ran (round {rounds}; completed before ShutdownAsync returned on that task's thread: {inlineAtFailure})");
    }
}
