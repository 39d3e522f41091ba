using SlimPool.Tests.Infrastructure;

namespace SlimPool.Tests.Lifecycle;

/// <summary>
/// Items a worker's <c>Dispose</c> runs on that worker while the other workers still run: they are the pool's items on a
/// worker, not the shutdown's last thread (found by review).
/// </summary>
public sealed class DisposeLoopOnAWorkerTests
{
    private static SlimThreadPool TwoWorkers() => new(new SlimThreadPoolOptions
    {
        WorkerCount = 2,
        Queue = WorkQueueKind.Locked,
        StarvationTimeout = Timeout.InfiniteTimeSpan,
    });

    // Worker 2 is held inside `held`; worker 1 runs an item that queues `leftover` behind it and disposes the pool:
    // its Dispose runs `leftover` in RunUntilEmpty (t_runningLeftovers == this) while worker 2 is still busy.
    // The events are not disposed here: this returns as soon as it set them, and the disposing item, preempted between its
    // start and its wait (a loaded CI run), met a disposed event, threw, and never disposed the pool; its worker then ran
    // `leftover` as a plain item.
    private static void RunInAWorkersDisposeLoop(SlimThreadPool pool, Action leftover)
    {
        var xStarted = new ManualResetEventSlim();
        var yQueued = new ManualResetEventSlim();
        pool.Queue(() =>
        {
            xStarted.Set();
            yQueued.Wait(Bounded.Timeout);
            pool.Dispose();
        });
        Bounded.Wait(xStarted, "the disposing item to start");
        pool.Queue(leftover);
        yQueued.Set();
    }

    [Fact]
    public void GroupSend_FromAnItemAWorkersDisposeRuns_ThrowsInsteadOfRunningBesideTheGroupsItem()
    {
        using SlimThreadPool pool = TwoWorkers();
        SlimThreadPoolGroup group = pool.CreateGroup(); // serial
        using var bStarted = new ManualResetEventSlim();
        using var release = new ManualResetEventSlim();
        using var sent = new ManualResetEventSlim();
        int inGroupItem = 0, overlapped = -1;
        group.Queue(() =>
        {
            Volatile.Write(ref inGroupItem, 1);
            bStarted.Set();
            release.Wait(Bounded.Timeout);
            Volatile.Write(ref inGroupItem, 0);
        });
        Bounded.Wait(bStarted, "the group's item to start on worker 2");
        Exception? failure = null;
        using var called = new ManualResetEventSlim();
        try
        {
            RunInAWorkersDisposeLoop(pool, () =>
            {
                try
                {
                    group.SynchronizationContext.Send(_ =>
                    {
                        Volatile.Write(ref overlapped, Volatile.Read(ref inGroupItem));
                        sent.Set();
                    }, null);
                }
                catch (ObjectDisposedException e)
                {
                    failure = e;
                }
                finally
                {
                    called.Set();
                }
            });
            Bounded.Wait(called, "the leftover's Send to return");
        }
        finally
        {
            release.Set();
        }

        Bounded.Result(pool.ShutdownAsync(ShutdownMode.Drain), "the drain");
        Assert.True(Volatile.Read(ref overlapped) != 1, "the serial group's Send callback ran inline on worker 1 while the group's item was running on worker 2");
        Assert.IsType<ObjectDisposedException>(failure); // during the shutdown it can neither wait for the group nor run beside it
    }

    [Fact]
    public void CancelledShutdownAsync_FromAnItemAWorkersDisposeRuns_ReturnsWithoutWaitingForRunningItems()
    {
        using SlimThreadPool pool = TwoWorkers();
        using var blockerStarted = new ManualResetEventSlim();
        using var release = new ManualResetEventSlim();
        using var called = new ManualResetEventSlim();
        Task<ShutdownResult>? inner = null;
        pool.Queue(() =>
        {
            blockerStarted.Set();
            release.Wait(Bounded.Timeout);
        });
        Bounded.Wait(blockerStarted, "the blocking item on worker 2");
        bool returned;
        try
        {
            RunInAWorkersDisposeLoop(pool, () =>
            {
                inner = pool.ShutdownAsync(ShutdownMode.Drain, new CancellationToken(canceled: true));
                called.Set();
            });
            Bounded.Wait(called, "the leftover item to call ShutdownAsync");
            returned = ((IAsyncResult)inner!).AsyncWaitHandle.WaitOne(TimeSpan.FromSeconds(5));
        }
        finally
        {
            release.Set();
        }

        Bounded.Result(pool.ShutdownAsync(ShutdownMode.Drain), "the drain");
        Assert.True(returned, "guarantee 4f: a cancelled ShutdownAsync waited for a running item (called on a worker inside its Dispose's leftover loop)");
    }
}
