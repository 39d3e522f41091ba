using SlimPool.Tests.Infrastructure;

namespace SlimPool.Tests.Lifecycle;

/// <summary>
/// Shutdown never leaves anybody waiting for ever and never makes a producer run other people's items: a late
/// producer during a drain, a Send from outside whose item is abandoned, a cancelled shutdown while items block.
/// </summary>
public sealed class ShutdownEndingsTests
{
    [Fact]
    public void Queue_PublishedAsADrainBegins_ProducerRunsNoOtherItem()
    {
        // The producer's enqueue is held until the drain has begun, so it publishes, then sees the pool shutting down
        // (the race window, made wide). The queue holds 50 other items behind a blocked worker.
        var queue = new GatedQueue();
        using var pool = new SlimThreadPool(new SlimThreadPoolOptions
        {
            WorkerCount = 1,
            QueueFactory = () => queue,
            StarvationTimeout = Timeout.InfiniteTimeSpan,
        });
        var blocked = new BlockedWorkers(pool);
        int producerThread = 0, ranOnProducer = 0, ran = 0;
        for (int i = 0; i < 50; i++)
        {
            pool.Queue(() =>
            {
                Interlocked.Increment(ref ran);
                if (Environment.CurrentManagedThreadId == Volatile.Read(ref producerThread))
                {
                    Interlocked.Increment(ref ranOnProducer);
                }
            });
        }

        queue.HoldNextEnqueue();
        var producer = new Thread(() =>
        {
            Volatile.Write(ref producerThread, Environment.CurrentManagedThreadId);
            pool.Queue(() => Interlocked.Increment(ref ran));
        });
        producer.Start();
        Bounded.Wait(queue.Held, "the producer to reach its enqueue");
        Task<ShutdownResult> drain = pool.ShutdownAsync(ShutdownMode.Drain);
        queue.Release();
        Assert.True(producer.Join(Bounded.Timeout), "the producer hung");

        Assert.Equal(0, Volatile.Read(ref ranOnProducer));
        blocked.Release();
        Assert.Equal(ShutdownMode.Drain, Bounded.Result(drain, "the drain").Mode);
        Assert.Equal(51, Volatile.Read(ref ran));
    }

    [Fact]
    public void SynchronizationContextSend_FromOutsideAndAbandoned_ThrowsInsteadOfWaitingForever()
    {
        SlimThreadPool pool = TestPools.Create(workers: 1);
        var blocked = new BlockedWorkers(pool);
        bool callbackRan = false;
        Exception? thrown = null;
        var sender = new Thread(() =>
        {
            try
            {
                pool.SynchronizationContext.Send(_ => callbackRan = true, null);
            }
            catch (Exception exception)
            {
                thrown = exception;
            }
        });
        sender.Start();
        Bounded.Until(() => pool.PendingWorkItemCount == 1, "the Send to be queued");

        Task<ShutdownResult> shutdown = pool.ShutdownAsync(ShutdownMode.Abandon);
        blocked.Release();
        ShutdownResult result = Bounded.Result(shutdown, "the abandon");

        Assert.True(sender.Join(Bounded.Timeout), "Send is still waiting for an item the pool abandoned");
        Assert.IsType<ObjectDisposedException>(thrown);
        Assert.False(callbackRan);
        Assert.Equal(0, result.AbandonedCount); // reported to its waiting caller instead
    }

    [Fact]
    public async Task ShutdownAsync_CancelledWhileAnItemBlocks_ReturnsWithoutWaitingForIt()
    {
        SlimThreadPool pool = TestPools.Create(workers: 1);
        var blocked = new BlockedWorkers(pool);
        pool.Queue(() => { });
        using var cancellation = new CancellationTokenSource();

        Task<ShutdownResult> shutdown = pool.ShutdownAsync(ShutdownMode.Drain, cancellation.Token);
        cancellation.Cancel();

        // Times out (TimeoutException) if the cancelled shutdown waits for the blocked item.
        ShutdownResult result = await shutdown.WaitAsync(TimeSpan.FromSeconds(10));
        Assert.Equal(ShutdownMode.Abandon, result.Mode);
        Assert.Equal(1, result.AbandonedCount);
        Assert.Equal(1, result.RunningWorkItemCount);
        Assert.False(blocked.Finished);

        blocked.Release();
        Bounded.Run(pool.Dispose, "disposing once the item returns");
        Assert.True(blocked.Finished);
        Assert.Same(result, Bounded.Result(pool.ShutdownAsync(ShutdownMode.Drain), "a later shutdown call"));
    }

    [Fact]
    public void WaitForIdleAsync_LongRunningTaskQueuedBefore_WaitsForIt()
    {
        using SlimThreadPool pool = TestPools.Create(workers: 1);
        using var release = new ManualResetEventSlim();
        Task longRunning = Task.Factory.StartNew(() => release.Wait(Bounded.Timeout), CancellationToken.None, TaskCreationOptions.LongRunning, pool.TaskScheduler);

        Task idle = pool.WaitForIdleAsync();
        Thread.Sleep(50);

        Assert.False(idle.IsCompleted, "idle while a task queued before the call still runs");
        release.Set();
        Bounded.Wait(longRunning, "the long-running task");
        Bounded.Wait(idle, "idle after the task");
    }

    public static TheoryData<WorkQueueKind, IdleWaitKind> Configurations() => TestPools.QueueAndIdleWaits();

    /// <summary>
    /// The abandon flag is up before the shutdown begins, so the only worker may see it between two items of a chain and
    /// exit before the shutdown has stopped the starvation guard: the shutdown then finishes on the caller's thread at once
    /// and must not wait for a guard that nobody told to stop. A race: each configuration tries it many times.
    /// </summary>
    [Theory]
    [MemberData(nameof(Configurations))]
    public void ShutdownAsync_AbandonWhileTheOnlyWorkerRunsAChain_Returns(WorkQueueKind queue, IdleWaitKind idleWait)
    {
        for (int attempt = 0; attempt < 150; attempt++)
        {
            var pool = new SlimThreadPool(new SlimThreadPoolOptions
            {
                WorkerCount = 1,
                Queue = queue,
                IdleWait = idleWait,
                StarvationTimeout = TimeSpan.FromMilliseconds(500), // the guard must exist for the finish to join it
            });
            using var running = new ManualResetEventSlim();
            void Step()
            {
                running.Set();
                pool.Queue(Step);
            }

            pool.Queue(Step);
            Bounded.Wait(running, "the chain to start");
            Task<ShutdownResult>? abandon = null;
            Bounded.Run(() => abandon = pool.ShutdownAsync(ShutdownMode.Abandon), $"ShutdownAsync(Abandon) to return (attempt {attempt + 1})");
            ShutdownResult result = Bounded.Result(abandon!, "the abandon");
            Assert.Equal(ShutdownMode.Abandon, result.Mode);
        }
    }
}
