using System.Collections.Concurrent;
using SlimPool.Tests.Infrastructure;

namespace SlimPool.Tests.Contracts;

/// <summary>The contract suite's lifecycle half: disposing drains, never deadlocks, and stops every worker.</summary>
public abstract partial class ThreadPoolContractTests
{
    [Fact]
    public void Dispose_WithQueuedItems_RunsEveryAcceptedItem()
    {
        const int Items = 5_000;
        var ledger = new Ledger(Items);
        IThreadPool pool = CreatePool();
        for (int i = 0; i < Items; i++)
        {
            int id = i;
            pool.Queue(() =>
            {
                Thread.SpinWait(50);
                ledger.Mark(id);
            });
        }

        Bounded.Run(pool.Dispose, "Dispose");

        // Dispose returned after draining: nothing may still be outstanding.
        ledger.WaitAll("nothing: Dispose already drained");
        ledger.AssertEachExactlyOnce();
    }

    [Fact]
    public void DisposeAsync_WithQueuedItems_RunsEveryAcceptedItem()
    {
        const int Items = 2_000;
        var ledger = new Ledger(Items);
        IThreadPool pool = CreatePool();
        for (int i = 0; i < Items; i++)
        {
            int id = i;
            pool.Queue(() => ledger.Mark(id));
        }

        Bounded.Wait(pool.DisposeAsync().AsTask(), "DisposeAsync");
        ledger.WaitAll("nothing: DisposeAsync already drained");
        ledger.AssertEachExactlyOnce();
    }

    [Fact]
    public void Dispose_CalledTwice_SecondCallReturns()
    {
        IThreadPool pool = CreatePool();
        Bounded.Run(pool.Dispose, "first Dispose");
        Bounded.Run(pool.Dispose, "second Dispose");
    }

    [Fact]
    public void Dispose_FromOwnWorker_ReturnsAndRunsTheRest()
    {
        const int After = 200;
        var ledger = new Ledger(After);
        IThreadPool pool = CreatePool();
        using var gate = new ManualResetEventSlim(false);
        var disposedFromWorker = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);

        pool.Queue(() =>
        {
            gate.Wait(Bounded.Timeout);
            try
            {
                pool.Dispose();
                disposedFromWorker.SetResult();
            }
            catch (Exception exception)
            {
                disposedFromWorker.SetException(exception);
            }
        });
        for (int i = 0; i < After; i++)
        {
            int id = i;
            pool.Queue(() => ledger.Mark(id));
        }

        gate.Set();
        Bounded.Wait(disposedFromWorker.Task, "Dispose called on a worker to return");
        ledger.WaitAll("items queued before the worker disposed the pool");
        ledger.AssertEachExactlyOnce();
        Bounded.Run(pool.Dispose, "Dispose from outside after the worker's");
    }

    [Fact]
    public void Queue_AfterDispose_ThrowsObjectDisposedException()
    {
        IThreadPool pool = CreatePool();
        pool.Dispose();

        Assert.Throws<ObjectDisposedException>(() => pool.Queue(() => { }));
        Assert.Throws<ObjectDisposedException>(() => pool.Queue(static _ => { }, null));
        Assert.Throws<ObjectDisposedException>(() => pool.Queue(new CountingWorkItem(null)));
    }

    [Fact]
    public void TryQueue_AfterDispose_ReturnsFalseAndNeverRuns()
    {
        IThreadPool pool = CreatePool();
        pool.Dispose();
        int ran = 0;

        Assert.False(pool.TryQueue(() => Interlocked.Increment(ref ran)));
        Assert.False(pool.TryQueue(_ => Interlocked.Increment(ref ran), null));
        Assert.False(pool.TryQueue(new CountingWorkItem(null)));
        Thread.Sleep(20);
        Assert.Equal(0, Volatile.Read(ref ran));
    }

    [Fact]
    [Trait("Category", "Stress")]
    public void TryQueue_RacingDispose_AcceptedItemsRunAndRejectedNever()
    {
        int rounds = StressSize.Pick(quick: 100, longRun: 10_000);
        for (int round = 0; round < rounds; round++)
        {
            IThreadPool pool = CreatePool();
            int accepted = 0;
            int executed = 0;
            using var start = new Barrier(3);
            var producers = Enumerable.Range(0, 2).Select(_ => Task.Factory.StartNew(() =>
            {
                start.SignalAndWait(Bounded.Timeout);
                for (int i = 0; i < 1_000; i++)
                {
                    if (pool.TryQueue(() => Interlocked.Increment(ref executed)))
                    {
                        Interlocked.Increment(ref accepted);
                    }
                }
            }, TaskCreationOptions.LongRunning)).ToArray();

            start.SignalAndWait(Bounded.Timeout);
            Bounded.Run(pool.Dispose, $"Dispose racing producers, round {round}");
            Bounded.Wait(Task.WhenAll(producers), "producers");

            // Every item accepted before Dispose returned has run; an item accepted by a TryQueue that raced
            // the end of Dispose is run by that producer itself before TryQueue returns.
            Assert.Equal(Volatile.Read(ref accepted), Volatile.Read(ref executed));
        }
    }

    [Fact]
    public void Dispose_AfterWork_LeavesNoWorkerThreadRunning()
    {
        if (!OwnsItsThreads)
        {
            return; // the built-in pool's threads belong to the process
        }

        IThreadPool pool = CreatePool();
        var threads = new ConcurrentDictionary<Thread, byte>();
        using var done = new CountdownEvent(200);
        for (int i = 0; i < 200; i++)
        {
            pool.Queue(() =>
            {
                threads.TryAdd(Thread.CurrentThread, 0);
                Thread.SpinWait(200);
                done.Signal();
            });
        }

        Bounded.Wait(done, "items");
        Bounded.Run(pool.Dispose, "Dispose");

        Assert.NotEmpty(threads);
        Assert.All(threads.Keys, thread => Assert.False(thread.IsAlive, $"{thread.Name} is still running after Dispose."));
    }
}
