using System.Collections.Concurrent;
using SlimPool.Tests.Infrastructure;

namespace SlimPool.Tests.Contracts;

/// <summary>
/// What every <see cref="IThreadPool"/> promises, run against each SlimPool configuration and against the
/// built-in pool's adapter (like the Channels tests run one suite per channel kind).
/// </summary>
public abstract partial class ThreadPoolContractTests
{
    /// <summary>Creates the pool under test.</summary>
    protected abstract IThreadPool CreatePool(Action<Exception>? unhandledException = null, bool flowExecutionContext = false);

    /// <summary>Whether the pool's workers are its own (false for the process-wide built-in pool).</summary>
    protected virtual bool OwnsItsThreads => true;

    [Theory]
    [InlineData(1)]
    [InlineData(2)]
    [InlineData(8)]
    [Trait("Category", "Stress")]
    public void Queue_ManyProducersAllOverloads_EachItemRunsExactlyOnce(int producers)
    {
        int perProducer = StressSize.Pick(quick: 20_000, longRun: 100_000_000) / producers;
        var ledger = new Ledger(perProducer * producers);
        using IThreadPool pool = CreatePool();
        var item = new LedgerWorkItems(ledger);

        Parallel.For(0, producers, new ParallelOptions { MaxDegreeOfParallelism = producers }, producer =>
        {
            for (int i = 0; i < perProducer; i++)
            {
                int id = producer * perProducer + i;
                switch (id % 3)
                {
                    case 0:
                        pool.Queue(() => ledger.Mark(id));
                        break;
                    case 1:
                        pool.Queue(static s => ((LedgerEntry)s!).Mark(), new LedgerEntry(ledger, id));
                        break;
                    default:
                        pool.Queue(item.For(id));
                        break;
                }
            }
        });

        ledger.WaitAll("every queued item");
        ledger.AssertEachExactlyOnce();
    }

    [Fact]
    public void TryQueue_OpenPool_ReturnsTrueAndRunsEachOverload()
    {
        var ledger = new Ledger(3);
        using IThreadPool pool = CreatePool();

        Assert.True(pool.TryQueue(() => ledger.Mark(0)));
        Assert.True(pool.TryQueue(static s => ((LedgerEntry)s!).Mark(), new LedgerEntry(ledger, 1)));
        Assert.True(pool.TryQueue(new LedgerWorkItems(ledger).For(2)));

        ledger.WaitAll("three items");
        ledger.AssertEachExactlyOnce();
    }

    [Fact]
    public void Queue_FromInsideWorkItems_ChainsRunToTheEnd()
    {
        const int Chains = 16;
        const int Length = 500;
        var ledger = new Ledger(Chains * Length);
        using IThreadPool pool = CreatePool();

        void Step(int chain, int step)
        {
            ledger.Mark(chain * Length + step);
            if (step + 1 < Length)
            {
                pool.Queue(() => Step(chain, step + 1));
            }
        }

        for (int chain = 0; chain < Chains; chain++)
        {
            int c = chain;
            pool.Queue(() => Step(c, 0));
        }

        ledger.WaitAll("every step of every chain");
        ledger.AssertEachExactlyOnce();
    }

    [Fact]
    public void Queue_SameWorkItemQueuedRepeatedly_RunsOncePerQueueing()
    {
        const int Times = 1000;
        using var done = new CountdownEvent(Times);
        var item = new CountingWorkItem(done);
        using IThreadPool pool = CreatePool();

        for (int i = 0; i < Times; i++)
        {
            pool.Queue(item);
        }

        Bounded.Wait(done, "every queueing of the reused item");
        Assert.Equal(Times, item.Executions);
    }

    [Fact]
    public void Queue_ThrowingItem_ReportsEachExceptionOnceAndWorkersLiveOn()
    {
        const int Throwers = 50;
        var reported = new ConcurrentBag<Exception>();
        using var allReported = new CountdownEvent(Throwers);
        using IThreadPool pool = CreatePool(exception =>
        {
            reported.Add(exception);
            allReported.Signal();
        });

        for (int i = 0; i < Throwers; i++)
        {
            int id = i;
            pool.Queue(() => throw new InvalidOperationException($"boom {id}"));
        }

        Bounded.Wait(allReported, "every exception to be reported");

        // Every worker is still alive: more work than workers still completes.
        var ledger = new Ledger(Math.Max(100, pool.WorkerCount * 4));
        for (int i = 0; i < ledger.Count; i++)
        {
            int id = i;
            pool.Queue(() => ledger.Mark(id));
        }

        ledger.WaitAll("items queued after the throwing ones");
        ledger.AssertEachExactlyOnce();
        Assert.Equal(Throwers, reported.Count);
        Assert.Equal(Throwers, reported.Select(e => e.Message).Distinct().Count());
    }

    [Fact]
    public void Queue_TenPercentThrow_EachExceptionReportedOnceAndEveryOtherItemRuns()
    {
        const int Items = 5_000;
        var reported = new int[Items];
        var ledger = new Ledger(Items);
        using IThreadPool pool = CreatePool(exception =>
        {
            Interlocked.Increment(ref reported[(int)exception.Data["id"]!]);
            ledger.Mark((int)exception.Data["id"]!);
        });
        int workers = pool.WorkerCount;

        for (int i = 0; i < Items; i++)
        {
            int id = i;
            pool.Queue(() =>
            {
                if (id % 10 == 0)
                {
                    var failure = new InvalidOperationException($"fault {id}");
                    failure.Data["id"] = id;
                    throw failure;
                }

                ledger.Mark(id);
            });
        }

        ledger.WaitAll("every item, thrown or not");
        ledger.AssertEachExactlyOnce();
        for (int i = 0; i < Items; i++)
        {
            Assert.Equal(i % 10 == 0 ? 1 : 0, Volatile.Read(ref reported[i]));
        }

        if (OwnsItsThreads)
        {
            Assert.Equal(workers, pool.WorkerCount);
        }
    }

    [Fact]
    public void Queue_FlowEnabled_AsyncLocalValueIsSeen()
    {
        var local = new AsyncLocal<string?>();
        using IThreadPool pool = CreatePool(flowExecutionContext: true);
        local.Value = "flowed";
        var seen = new TaskCompletionSource<string?>(TaskCreationOptions.RunContinuationsAsynchronously);

        pool.Queue(() => seen.SetResult(local.Value));

        Assert.Equal("flowed", Bounded.Result(seen.Task, "the item"));
    }

    [Fact]
    public void Queue_FlowDisabled_AsyncLocalValueIsNotSeen()
    {
        var local = new AsyncLocal<string?>();
        using IThreadPool pool = CreatePool(flowExecutionContext: false);
        local.Value = "must not flow";
        var seen = new TaskCompletionSource<string?>(TaskCreationOptions.RunContinuationsAsynchronously);

        pool.Queue(() => seen.SetResult(local.Value));

        Assert.Null(Bounded.Result(seen.Task, "the item"));
    }

    [Fact]
    public void Queue_SingleItemsWithIdleGaps_EachRunsWithoutAnotherPush()
    {
        // The lost wake-up hunt: each item is queued alone, often just as the workers go idle, and must
        // run without a later push to rescue it.
        int rounds = StressSize.Pick(quick: 2_000, longRun: 200_000);
        using IThreadPool pool = CreatePool();
        using var ran = new AutoResetEvent(false);
        var random = new Random(42);
        for (int round = 0; round < rounds; round++)
        {
            pool.Queue(() => ran.Set());
            Bounded.Wait(ran, $"item of round {round}");
            Thread.SpinWait(random.Next(0, 2_000)); // land anywhere in the workers' spin-then-park window
        }
    }

    [Fact]
    public async Task Run_EachShapeThroughTheInterface_RunsTheWorkAndReturnsItsResult()
    {
        using IThreadPool pool = CreatePool();
        int ran = 0;
        await pool.Run(() => { ran = 1; }).WaitAsync(Bounded.Timeout);
        Assert.Equal(1, ran);
        Assert.Equal(3, await pool.Run(() => 3).WaitAsync(Bounded.Timeout));
        await pool.Run(async () => { await Task.Yield(); ran = 2; }).WaitAsync(Bounded.Timeout);
        Assert.Equal(2, ran);
        Assert.Equal(5, await pool.Run(async () => { await Task.Yield(); return 5; }).WaitAsync(Bounded.Timeout));
        Assert.Equal(7, await Task.Factory.StartNew(() => 7, CancellationToken.None, TaskCreationOptions.None, pool.TaskScheduler).WaitAsync(Bounded.Timeout));
        Assert.Equal("action", Assert.Throws<ArgumentNullException>(() => { _ = pool.Run((Action)null!); }).ParamName);
    }

    [Fact]
    public void NullArguments_ThrowArgumentNullExceptionNamingTheArgument()
    {
        using IThreadPool pool = CreatePool();

        Assert.Equal("callback", Assert.Throws<ArgumentNullException>(() => pool.Queue((Action)null!)).ParamName);
        Assert.Equal("callback", Assert.Throws<ArgumentNullException>(() => pool.Queue((Action<object?>)null!, null)).ParamName);
        Assert.Equal("workItem", Assert.Throws<ArgumentNullException>(() => pool.Queue((IWorkItem)null!)).ParamName);
        Assert.Equal("callback", Assert.Throws<ArgumentNullException>(() => pool.TryQueue((Action)null!)).ParamName);
        Assert.Equal("callback", Assert.Throws<ArgumentNullException>(() => pool.TryQueue((Action<object?>)null!, null)).ParamName);
        Assert.Equal("workItem", Assert.Throws<ArgumentNullException>(() => pool.TryQueue((IWorkItem)null!)).ParamName);
    }

    private sealed class LedgerWorkItems(Ledger ledger)
    {
        public IWorkItem For(int id) => new Item(ledger, id);

        private sealed class Item(Ledger ledger, int id) : IWorkItem
        {
            public void Execute() => ledger.Mark(id);
        }
    }
}
