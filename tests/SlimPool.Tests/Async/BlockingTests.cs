using SlimPool.Tests.Infrastructure;

namespace SlimPool.Tests.Async;

public sealed class BlockingTests
{
    private static SlimThreadPool Pool(int workers = 1, int maxWorkers = 8, TimeSpan? starvation = null, TimeSpan? spareIdle = null, IdleWaitKind idleWait = IdleWaitKind.SpinThenPark) =>
        new(new SlimThreadPoolOptions
        {
            WorkerCount = workers,
            MaxWorkers = maxWorkers,
            IdleWait = idleWait,
            StarvationTimeout = starvation ?? Timeout.InfiniteTimeSpan,
            SpareWorkerIdleTimeout = spareIdle ?? TimeSpan.FromSeconds(5),
        });

    [Theory]
    [InlineData(IdleWaitKind.SpinThenPark)]
    [InlineData(IdleWaitKind.AutoResetEvent)]
    public void RunBlocking_SyncOverAsyncOnOneWorker_CompletesInsteadOfDeadlocking(IdleWaitKind idleWait)
    {
        using SlimThreadPool pool = Pool(idleWait: idleWait);

        // The only worker blocks on a task that needs another item of the same pool: without compensation this
        // deadlocks (the starvation guard is off here).
        Task<int> outer = pool.Run(() => pool.RunBlocking(() => pool.Run(() => 42).Result));

        Assert.Equal(42, Bounded.Result(outer, "the blocked worker's inner task"));
    }

    [Fact]
    public void StarvationGuard_ItemBlocksWithoutHint_NextItemStillRuns()
    {
        using SlimThreadPool pool = Pool(starvation: TimeSpan.FromMilliseconds(20));
        using var release = new ManualResetEventSlim(false);
        using var blocked = new ManualResetEventSlim(false);
        using var second = new ManualResetEventSlim(false);

        pool.Queue(() =>
        {
            blocked.Set();
            release.Wait(Bounded.Timeout); // blocks, and does not tell the pool
        });
        Bounded.Wait(blocked, "the first item to block");
        pool.Queue(second.Set);

        Bounded.Wait(second, "the guard to add a worker for the second item");
        Assert.True(pool.LiveWorkerCount >= 2);
        release.Set();
    }

    [Fact]
    public void StarvationGuard_StrayWakeUps_DoNotShortenItsPeriod()
    {
        // A racing producer can leave the guard a wake-up permit. Before the fix each one cut a period to nothing,
        // the guard saw "no progress" and started a spare while the workers were doing fine (the --monitor run grew
        // to 8 workers). The period is 30 s here, so no spare may start within the test.
        using var pool = new SlimThreadPool(new SlimThreadPoolOptions { WorkerCount = 1, StarvationTimeout = TimeSpan.FromSeconds(30) });
        using var blocked = new BlockedWorkers(pool);
        pool.Queue(() => { }); // an item waits while every worker is busy: the guard starts watching

        for (int i = 0; i < 20; i++)
        {
            pool.Guard!.Wake();
            Thread.Sleep(5);
        }

        Assert.Equal(1, pool.LiveWorkerCount);
    }

    [Fact]
    public void SpareWorkers_AfterTheBlockingEnds_RetireAfterTheIdleTimeout()
    {
        using SlimThreadPool pool = Pool(spareIdle: TimeSpan.FromMilliseconds(100));
        using var release = new ManualResetEventSlim(false);
        using var entered = new ManualResetEventSlim(false);
        pool.Queue(() => pool.RunBlocking(() =>
        {
            entered.Set();
            release.Wait(Bounded.Timeout);
        }));

        Bounded.Wait(entered, "the blocking scope");
        Bounded.Until(() => pool.LiveWorkerCount == 2, "a spare worker to start for the blocked one");
        Assert.Equal(1, pool.BlockedWorkerCount);
        release.Set();

        Bounded.Until(() => pool.LiveWorkerCount == 1 && pool.BlockedWorkerCount == 0, "the spare worker to retire");
        var ledger = new Ledger(100); // the pool still works after the spare left
        for (int i = 0; i < 100; i++)
        {
            int id = i;
            pool.Queue(() => ledger.Mark(id));
        }

        ledger.WaitAll("items after the spare retired");
        ledger.AssertEachExactlyOnce();
    }

    [Fact]
    public void EnterBlocking_Nested_CountsOnce()
    {
        using SlimThreadPool pool = Pool(workers: 2);
        int inner = Bounded.Result(pool.Run(() =>
        {
            using (pool.EnterBlocking())
            using (pool.EnterBlocking())
            {
                return pool.BlockedWorkerCount;
            }
        }), "the nested scopes");

        Assert.Equal(1, inner);
        Bounded.Until(() => pool.BlockedWorkerCount == 0, "the scopes to end");
    }

    [Fact]
    public void RunBlocking_OffThePool_JustRunsTheDelegate()
    {
        using SlimThreadPool pool = Pool();

        Assert.Equal(7, pool.RunBlocking(() => 7));
        using (pool.EnterBlocking())
        {
            Assert.Equal(0, pool.BlockedWorkerCount);
        }

        Assert.Equal(1, pool.LiveWorkerCount);
    }

    [Fact]
    public void Spares_ManyBlockedWorkers_NeverExceedMaxWorkers()
    {
        using SlimThreadPool pool = Pool(workers: 1, maxWorkers: 3);
        using var release = new ManualResetEventSlim(false);
        using var entered = new CountdownEvent(3);
        for (int i = 0; i < 6; i++)
        {
            pool.Queue(() => pool.RunBlocking(() =>
            {
                entered.Signal();
                release.Wait(Bounded.Timeout);
            }));
        }

        Bounded.Wait(entered, "three workers to block");
        Thread.Sleep(50);
        Assert.Equal(3, pool.LiveWorkerCount); // the ceiling holds; the other items wait
        release.Set();
        Bounded.Until(() => pool.PendingWorkItemCount == 0 && pool.BlockedWorkerCount == 0, "the rest to run");
    }

    [Fact]
    public void Dispose_WithSpareWorkers_JoinsThemAll()
    {
        SlimThreadPool pool = Pool(spareIdle: TimeSpan.FromSeconds(30));
        var threads = new System.Collections.Concurrent.ConcurrentBag<Thread>();
        using var entered = new ManualResetEventSlim(false);
        pool.Queue(() => pool.RunBlocking(() =>
        {
            threads.Add(Thread.CurrentThread);
            entered.Set();
            Thread.Sleep(50);
        }));
        Bounded.Wait(entered, "the blocking item");
        Bounded.Until(() => pool.LiveWorkerCount == 2, "a spare");
        pool.Queue(() => threads.Add(Thread.CurrentThread));

        Bounded.Run(pool.Dispose, "Dispose with a spare alive");

        Assert.Equal(0, pool.LiveWorkerCount);
        Assert.All(threads, t => Assert.False(t.IsAlive));
    }

    [Fact]
    public void Options_BadBlockingSettings_ThrowNamingTheOption()
    {
        Assert.Equal("MaxWorkers", Assert.Throws<ArgumentOutOfRangeException>(() => new SlimThreadPool(new SlimThreadPoolOptions { WorkerCount = 4, MaxWorkers = 2 })).ParamName);
        Assert.Equal("MaxWorkers", Assert.Throws<ArgumentOutOfRangeException>(() => new SlimThreadPoolOptions { MaxWorkers = 0 }).ParamName);
        Assert.Equal("SpareWorkerIdleTimeout", Assert.Throws<ArgumentOutOfRangeException>(() => new SlimThreadPoolOptions { SpareWorkerIdleTimeout = TimeSpan.FromSeconds(-1) }).ParamName);
        Assert.Equal("SpareWorkerIdleTimeout", Assert.Throws<ArgumentOutOfRangeException>(() => new SlimThreadPoolOptions { SpareWorkerIdleTimeout = Timeout.InfiniteTimeSpan }).ParamName);
        Assert.Equal("StarvationTimeout", Assert.Throws<ArgumentOutOfRangeException>(() => new SlimThreadPoolOptions { StarvationTimeout = TimeSpan.Zero }).ParamName);
        Assert.Equal("StarvationTimeout", Assert.Throws<ArgumentOutOfRangeException>(() => new SlimThreadPoolOptions { StarvationTimeout = TimeSpan.FromMilliseconds(-5) }).ParamName);
        using SlimThreadPool pool = Pool();
        Assert.Equal("function", Assert.Throws<ArgumentNullException>(() => pool.RunBlocking((Func<int>)null!)).ParamName);
        Assert.Equal("action", Assert.Throws<ArgumentNullException>(() => pool.RunBlocking((Action)null!)).ParamName);
    }

    [Fact]
    public void Options_TimeoutLongerThanTheLongestWait_ThrowsSayingTheLimit()
    {
        // 100 days is positive: the message must say what is wrong with it (the pool waits in whole int milliseconds).
        var longest = TimeSpan.FromMilliseconds(int.MaxValue);
        foreach (Action set in new Action[]
        {
            () => _ = new SlimThreadPoolOptions { StarvationTimeout = TimeSpan.FromDays(100) },
            () => _ = new SlimThreadPoolOptions { SpareWorkerIdleTimeout = TimeSpan.FromDays(100) },
        })
        {
            ArgumentOutOfRangeException thrown = Assert.Throws<ArgumentOutOfRangeException>(set);
            Assert.Contains("at most " + longest, thrown.Message, StringComparison.Ordinal);
            Assert.Contains("int.MaxValue milliseconds", thrown.Message, StringComparison.Ordinal);
        }

        Assert.Equal(longest, new SlimThreadPoolOptions { StarvationTimeout = longest }.StarvationTimeout);
        Assert.Equal(longest, new SlimThreadPoolOptions { SpareWorkerIdleTimeout = longest }.SpareWorkerIdleTimeout);
    }
}
