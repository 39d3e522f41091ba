using SlimPool.Tests.Infrastructure;

namespace SlimPool.Tests.Composition;

/// <summary>The composition test's record of the pool's thread hooks: one record a thread, however the runtime reuses ids.</summary>
public sealed class ThreadHookRecordsTests
{
    /// <summary>
    /// The composition's own ThreadHookRecords on a pool whose spares retire after 5 ms (as in SparesWithThreadHooks) and
    /// come back for the next blocking scope: each spare is a new thread that runs each hook once, so every record should
    /// read Starts == 1 and Exits == 1 (what ThreadChecks.HooksPairUp demands). The records are keyed by
    /// ManagedThreadId before, which the runtime reuses once a dead thread's object is collected: with a collection between spares, one record counted 28 threads.
    /// </summary>
    [Theory]
    [InlineData(true)]
    [InlineData(false)]
    public void OnStart_SparesRetireAndComeBack_EachRecordIsOneThread(bool collectBetween)
    {
        const string name = "review-hooks";
        var ledger = new ComposeLedger();
        var hooks = new ThreadHookRecords(ledger, name);
        var options = new SlimThreadPoolOptions
        {
            Name = name,
            WorkerCount = 1,
            StarvationTimeout = Timeout.InfiniteTimeSpan,
            SpareWorkerIdleTimeout = TimeSpan.FromMilliseconds(5),
            OnThreadStart = hooks.OnStart,
            OnThreadExit = hooks.OnExit,
        };
        var pool = new SlimThreadPool(options);
        hooks.Attach(pool);
        for (int round = 0; round < 30; round++)
        {
            using var done = new ManualResetEventSlim();
            pool.Queue(() =>
            {
                using (pool.EnterBlocking())
                {
                    pool.Queue(() => { }); // work for the spare
                    Thread.Sleep(2);
                }

                done.Set();
            });
            Bounded.Wait(done, "the blocking item");
            Thread.Sleep(30); // the spare retires and its thread ends
            if (collectBetween)
            {
                GC.Collect();
                GC.WaitForPendingFinalizers();
            }
        }

        Bounded.Run(() => pool.Dispose(), "the pool's dispose");
        string[] merged = hooks.Threads.Where(t => t.Starts != 1 || t.Exits != 1)
            .Select(t => $"'{t.Name}' (thread {t.ThreadId}) ran OnThreadStart {t.Starts} time(s) and OnThreadExit {t.Exits} time(s)").ToArray();
        Assert.True(merged.Length == 0, string.Join("; ", merged));
    }
}
