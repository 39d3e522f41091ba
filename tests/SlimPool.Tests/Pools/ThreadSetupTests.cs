using System.Collections.Concurrent;
using System.Globalization;
using SlimPool.Tests.Infrastructure;

namespace SlimPool.Tests.Pools;

public sealed class ThreadSetupTests
{
    [Fact]
    public void Name_Set_NamesEveryWorkerThread()
    {
        using SlimThreadPool pool = TestPools.Create(workers: 2, options => options.Name = "orders");
        var names = new ConcurrentBag<string?>();
        using var blocked = new BlockedWorkers(pool);
        blocked.Release();
        Bounded.Wait(pool.Run(() => names.Add(Thread.CurrentThread.Name)), "an item");

        Assert.Equal("orders", pool.Name);
        Assert.Matches(@"^orders #[12]$", Assert.Single(names));
    }

    [Fact]
    public void ThreadPriorityAndBackground_Set_AppliedToWorkers()
    {
        SlimThreadPool pool = TestPools.Create(workers: 1, options =>
        {
            options.ThreadPriority = ThreadPriority.BelowNormal;
            options.UseBackgroundThreads = false;
        });
        try
        {
            (ThreadPriority Priority, bool IsBackground) seen = Bounded.Result(
                pool.Run(() => (Thread.CurrentThread.Priority, Thread.CurrentThread.IsBackground)), "an item");

            Assert.Equal(ThreadPriority.BelowNormal, seen.Priority);
            Assert.False(seen.IsBackground);
        }
        finally
        {
            pool.Dispose(); // foreground workers: the process could not exit without this
        }
    }

    [Fact]
    public void UseBackgroundThreads_Default_WorkersAreBackgroundThreads()
    {
        using SlimThreadPool pool = TestPools.Create(workers: 1);

        Assert.True(Bounded.Result(pool.Run(() => Thread.CurrentThread.IsBackground), "an item"));
    }

    [Fact]
    public void OnThreadStartAndExit_PoolLifetime_CalledOncePerWorkerOnThatWorker()
    {
        var started = new ConcurrentDictionary<int, string?>();
        var exited = new ConcurrentDictionary<int, string?>();
        SlimThreadPool pool = TestPools.Create(workers: 3, options =>
        {
            options.Name = "hooks";
            options.OnThreadStart = index => Assert.True(started.TryAdd(index, Thread.CurrentThread.Name));
            options.OnThreadExit = index => Assert.True(exited.TryAdd(index, Thread.CurrentThread.Name));
        });
        Bounded.Until(() => started.Count == 3, "every worker's start hook");
        pool.Dispose();

        Assert.Equal([0, 1, 2], started.Keys.Order());
        Assert.Equal([0, 1, 2], exited.Keys.Order());
        for (int i = 0; i < 3; i++)
        {
            Assert.Equal($"hooks #{i + 1}", started[i]);
            Assert.Equal($"hooks #{i + 1}", exited[i]);
        }
    }

    [Fact]
    public void OnThreadStart_SetsCulture_ItemsStartFromIt()
    {
        var culture = CultureInfo.GetCultureInfo("fr-FR");
        using SlimThreadPool pool = TestPools.Create(workers: 1, options => options.OnThreadStart = _ => CultureInfo.CurrentCulture = culture);

        // Queue, not Run: a task flows its creator's ExecutionContext (and culture) in with it.
        using var changed = new ManualResetEventSlim();
        pool.Queue(() =>
        {
            CultureInfo.CurrentCulture = CultureInfo.InvariantCulture;
            changed.Set();
        });
        Bounded.Wait(changed, "an item that changes the culture");
        var seen = new TaskCompletionSource<CultureInfo>();
        pool.Queue(() => seen.SetResult(CultureInfo.CurrentCulture));

        Assert.Equal(culture, Bounded.Result(seen.Task, "the next item"));
    }

    [Fact]
    public void OnThreadStart_Throws_ReportedAndWorkerStillRunsItems()
    {
        var reported = new ConcurrentBag<Exception>();
        using var pool = new SlimThreadPool(new SlimThreadPoolOptions
        {
            WorkerCount = 2,
            OnThreadStart = _ => throw new InvalidOperationException("hook failed"),
            UnhandledException = reported.Add,
        });

        var ledger = new Ledger(100);
        for (int i = 0; i < ledger.Count; i++)
        {
            int id = i;
            pool.Queue(() => ledger.Mark(id));
        }

        ledger.WaitAll("items on workers whose start hook threw");
        Bounded.Until(() => reported.Count == 2, "both hook failures reported");
        Assert.All(reported, e => Assert.Equal("hook failed", e.Message));
    }
}
