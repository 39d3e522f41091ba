using SlimPool.ProtoActor.Tests.Infrastructure;
using SlimPool.Tests.Infrastructure;

namespace SlimPool.ProtoActor.Tests;

/// <summary>The dispatcher on its own: its arguments, and what it does with a run, without an actor system.</summary>
public sealed class SlimPoolDispatcherTests
{
    [Fact]
    public void Constructor_NullPool_Throws() =>
        Assert.Throws<ArgumentNullException>("pool", () => new SlimPoolDispatcher(null!));

    [Theory]
    [InlineData(0)]
    [InlineData(-1)]
    public void Constructor_ThroughputBelowOne_Throws(int throughput)
    {
        using SlimThreadPool pool = ProtoSystems.Pool(ProtoSystems.UniqueName());

        Assert.Throws<ArgumentOutOfRangeException>("throughput", () => new SlimPoolDispatcher(pool, throughput));
    }

    [Fact]
    public void Constructor_Defaults_ProtosThroughputAndTheBorrowedPool()
    {
        using SlimThreadPool pool = ProtoSystems.Pool(ProtoSystems.UniqueName());

        var dispatcher = new SlimPoolDispatcher(pool);

        Assert.Equal(300, dispatcher.Throughput);
        Assert.Same(pool, dispatcher.Pool);
        Assert.Equal(0, dispatcher.FallbackRunCount);
    }

    [Fact]
    public void Schedule_NullRunner_Throws()
    {
        using SlimThreadPool pool = ProtoSystems.Pool(ProtoSystems.UniqueName());

        Assert.Throws<ArgumentNullException>("runner", () => new SlimPoolDispatcher(pool).Schedule(null!));
    }

    [Fact]
    public void Schedule_RunnerThatAwaits_RunsOnThePoolAndDoesNotHoldTheWorker()
    {
        string name = ProtoSystems.UniqueName();
        using SlimThreadPool pool = ProtoSystems.Pool(name, workers: 1);
        var dispatcher = new SlimPoolDispatcher(pool);
        var gate = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        using var secondRan = new ManualResetEventSlim();
        bool firstOnPool = false;

        dispatcher.Schedule(async () =>
        {
            firstOnPool = ProtoSystems.OnPool(name);
            await gate.Task;
        });
        dispatcher.Schedule(() =>
        {
            secondRan.Set();
            return Task.CompletedTask;
        });

        // One worker: the second run can only start if the first gave the worker back at its await.
        Bounded.Wait(secondRan, "the second run while the first awaits");
        Assert.True(firstOnPool);
        Assert.False(gate.Task.IsCompleted);
        gate.SetResult();
    }

    [Fact]
    public void Schedule_ReusedRunner_AllocatesNothingOnTheCaller()
    {
        const int Runs = 100_000;
        using SlimThreadPool pool = ProtoSystems.Pool(ProtoSystems.UniqueName());
        var dispatcher = new SlimPoolDispatcher(pool);
        int ran = 0;
        Func<Task> runner = () =>
        {
            Interlocked.Increment(ref ran);
            return Task.CompletedTask;
        };

        void Burst()
        {
            for (int i = 0; i < Runs; i++)
            {
                dispatcher.Schedule(runner);
            }
        }

        Burst(); // warm-up: JIT, queue growth
        Bounded.Until(() => Volatile.Read(ref ran) == Runs, "the warm-up burst");
        var allocations = new List<long>();
        for (int attempt = 1; attempt <= 3; attempt++)
        {
            long before = GC.GetAllocatedBytesForCurrentThread();
            Burst();
            allocations.Add(GC.GetAllocatedBytesForCurrentThread() - before);
            Bounded.Until(() => Volatile.Read(ref ran) == Runs * (attempt + 1), "the measured burst");
            if (allocations[^1] == 0)
            {
                break;
            }
        }

        // Proto's mailbox allocates its runner per run; queueing it on the pool must add nothing.
        Assert.True(allocations[^1] == 0, $"every measured burst allocated on the caller: {string.Join(", ", allocations)} bytes");
    }

    [Fact]
    public void Schedule_RunnerThatFaults_ReachesThePoolsUnhandledExceptionHandler()
    {
        var reported = new TaskCompletionSource<Exception>(TaskCreationOptions.RunContinuationsAsynchronously);
        using var pool = new SlimThreadPool(new SlimThreadPoolOptions { WorkerCount = 1, UnhandledException = e => reported.TrySetResult(e) });
        var dispatcher = new SlimPoolDispatcher(pool);

        dispatcher.Schedule(() => Task.FromException(new InvalidOperationException("mailbox bug")));

        Assert.Equal("mailbox bug", Bounded.Result(reported.Task, "the fault to be reported").Message);
    }

    [Fact]
    public void Schedule_PoolDisposed_RunsOnTheBuiltInPoolAndCountsIt()
    {
        string name = ProtoSystems.UniqueName();
        SlimThreadPool pool = ProtoSystems.Pool(name);
        var dispatcher = new SlimPoolDispatcher(pool);
        pool.Dispose();
        var ran = new TaskCompletionSource<bool>(TaskCreationOptions.RunContinuationsAsynchronously);

        dispatcher.Schedule(() =>
        {
            ran.SetResult(ProtoSystems.OnPool(name));
            return Task.CompletedTask;
        });

        Assert.False(Bounded.Result(ran.Task, "the run refused by the disposed pool"));
        Assert.Equal(1, dispatcher.FallbackRunCount);
    }

    [Fact]
    public void Schedule_BoundedPoolFull_QueuedPastTheBoundOnThePool()
    {
        string name = ProtoSystems.UniqueName();
        using SlimThreadPool pool = new(new SlimThreadPoolOptions { Name = name, WorkerCount = 1, MaxWorkers = 1, BoundedCapacity = 1, StarvationTimeout = Timeout.InfiniteTimeSpan });
        var dispatcher = new SlimPoolDispatcher(pool);
        using var release = new ManualResetEventSlim();
        using var started = new ManualResetEventSlim();
        pool.Queue(() =>
        {
            started.Set();
            release.Wait(Bounded.Timeout);
        });
        Bounded.Wait(started, "the worker to hold the blocking item");
        Assert.True(pool.TryQueue(() => { }));
        Assert.False(pool.TryQueue(() => { })); // full
        var ran = new TaskCompletionSource<bool>(TaskCreationOptions.RunContinuationsAsynchronously);

        dispatcher.Schedule(() =>
        {
            ran.SetResult(ProtoSystems.OnPool(name));
            return Task.CompletedTask;
        });
        release.Set();

        Assert.True(Bounded.Result(ran.Task, "the run queued past the bound"));
        Assert.Equal(0, dispatcher.FallbackRunCount);
    }

    [Fact]
    public void Schedule_RunsThatKeepReschedulingWhileThePoolDrains_DoNotKeepTheDrainAlive()
    {
        // A mailbox whose actors keep messaging each other schedules run after run; once the drain begins they go to
        // the built-in pool, so the drain ends.
        string name = ProtoSystems.UniqueName();
        SlimThreadPool pool = ProtoSystems.Pool(name);
        var dispatcher = new SlimPoolDispatcher(pool);
        int stop = 0;
        Func<Task>? loop = null;
        loop = () =>
        {
            if (Volatile.Read(ref stop) == 0)
            {
                dispatcher.Schedule(loop!);
            }

            return Task.CompletedTask;
        };
        dispatcher.Schedule(loop);
        Thread.Sleep(20);

        Bounded.Run(pool.Dispose, "Dispose while runs keep rescheduling");
        Volatile.Write(ref stop, 1);

        Assert.InRange(dispatcher.FallbackRunCount, 1, long.MaxValue);
    }
}
