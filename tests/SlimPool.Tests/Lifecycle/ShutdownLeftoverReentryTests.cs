using SlimPool.Queues;
using SlimPool.Tests.Infrastructure;

namespace SlimPool.Tests.Lifecycle;

/// <summary>
/// The pool's and a group's own API called from items the shutdown runs itself off the pool's workers: by a late
/// producer (its publish landed after the shutdown's last look) or by the thread that finishes the shutdown. That thread
/// is the only one left to run the pool's items, so nothing it calls may wait for them (found by an adversarial hunt).
/// </summary>
public sealed class ShutdownLeftoverReentryTests
{
    private static readonly TimeSpan Short = TimeSpan.FromSeconds(10);

    // A producer whose publish lands after the shutdown's last look runs its own item (OnQueuedDuringShutdown).
    // Returns the producer thread, already joined or not (the caller asserts).
    private static Thread LateProducer(SlimThreadPool pool, GatedQueue queue, Action item)
    {
        queue.HoldNextEnqueue();
        var producer = new Thread(() => pool.Queue(item)) { IsBackground = true, Name = "late producer" };
        producer.Start();
        Bounded.Wait(queue.Held, "the producer to reach its enqueue");
        pool.Dispose(); // the queue is empty: the shutdown finishes, its last look is over
        queue.Release();
        return producer;
    }

    [Fact]
    public void SynchronizationContextSend_InALateProducersLeftoverItem_DoesNotDeadlock()
    {
        var queue = new GatedQueue();
        using var pool = queue.CreatePool();
        int sent = 0;
        Thread producer = LateProducer(pool, queue, () => pool.SynchronizationContext.Send(_ => Interlocked.Increment(ref sent), null));
        Assert.True(producer.Join(Short), "the late producer hung: Send inside the leftover item it runs waits for a callback only that thread would run");
        Assert.Equal(1, Volatile.Read(ref sent));
    }

    [Fact]
    public void GroupSynchronizationContextSend_InALateProducersLeftoverItem_ThrowsInsteadOfDeadlocking()
    {
        var queue = new GatedQueue();
        using var pool = queue.CreatePool();
        SlimThreadPoolGroup group = pool.CreateGroup();
        int sent = 0;
        Exception? failure = null;
        Thread producer = LateProducer(pool, queue, () =>
        {
            try
            {
                group.SynchronizationContext.Send(_ => Interlocked.Increment(ref sent), null);
            }
            catch (ObjectDisposedException e)
            {
                failure = e;
            }
        });
        Assert.True(producer.Join(Short), "the late producer hung: the group's Send inside the leftover item it runs waits for a turn only that thread would run");
        Assert.IsType<ObjectDisposedException>(failure); // it can neither wait for the group nor run inline beside it
        Assert.Equal(0, Volatile.Read(ref sent));
    }

    [Fact]
    public void GroupDispose_InALateProducersLeftoverItem_DoesNotWaitForItemsOnlyThatThreadRuns()
    {
        var queue = new GatedQueue();
        using var pool = queue.CreatePool();
        SlimThreadPoolGroup group = pool.CreateGroup();
        int ran = 0;
        Thread producer = LateProducer(pool, queue, () =>
        {
            group.SynchronizationContext.Post(_ => Interlocked.Increment(ref ran), null); // accepted: this thread runs leftovers
            group.Dispose();
        });
        Assert.True(producer.Join(Short), "the late producer hung: group.Dispose inside its leftover item waits for the group's turn, which only that thread would run");
        Assert.Equal(1, Volatile.Read(ref ran));
    }

    [Fact]
    public void ShutdownAbandonWithCancelledToken_InAnItemTheFinishRuns_GivesTheSameOutcomeAsEveryCall()
    {
        // The worker's exit hook posts two continuations (accepted: a drain, before the last look) after the worker's
        // last look: the shutdown's finish runs them. The first asks for an abandon with a cancelled token.
        Task<ShutdownResult>? inner = null;
        int ranSecond = 0;
        SlimThreadPool pool = LeftoverPools.Create(
            p => inner = p.ShutdownAsync(ShutdownMode.Abandon, new CancellationToken(canceled: true)),
            _ => Interlocked.Increment(ref ranSecond));
        pool.Queue(() => { });
        ShutdownResult outer = Bounded.Result(pool.ShutdownAsync(ShutdownMode.Drain), "the drain");
        Assert.NotNull(inner); // the first leftover ran
        ShutdownResult innerResult = Bounded.Result(inner!, "the inner abandon");
        int handedBack = innerResult.AbandonedCount;
        Assert.Equal(1, handedBack + Volatile.Read(ref ranSecond)); // ran or handed back, once
        // "Every call returns the same outcome"
        Assert.Equal(innerResult.Mode, outer.Mode);
        Assert.Equal(innerResult.AbandonedCount, outer.AbandonedCount);
    }

    [Fact]
    public void SynchronizationContextSend_InAnItemTheFinishRuns_DoesNotHangDispose()
    {
        int sent = 0;
        SlimThreadPool pool = LeftoverPools.Create(p => p.SynchronizationContext.Send(_ => Interlocked.Increment(ref sent), null));
        var disposer = new Thread(pool.Dispose) { IsBackground = true };
        disposer.Start();
        Assert.True(disposer.Join(Short), "pool.Dispose() hung: Send inside an item the finish runs waits for a callback only the finishing thread would run, holding the finish lock");
        Assert.Equal(1, Volatile.Read(ref sent));
    }

    [Fact]
    public void GroupDispose_InAnItemTheFinishRuns_DoesNotHangDispose()
    {
        int ran = 0;
        SlimThreadPoolGroup? group = null;
        SlimThreadPool pool = LeftoverPools.Create(p =>
        {
            group!.SynchronizationContext.Post(_ => Interlocked.Increment(ref ran), null);
            group.Dispose();
        });
        group = pool.CreateGroup();
        var disposer = new Thread(pool.Dispose) { IsBackground = true };
        disposer.Start();
        Assert.True(disposer.Join(Short), "pool.Dispose() hung: group.Dispose inside an item the finish runs waits for a turn only the finishing thread would run");
        Assert.Equal(1, Volatile.Read(ref ran));
    }

    [Fact]
    public void WaitForIdleAsync_WhileTheFinishRunsAnItem_DoesNotComplete()
    {
        using var started = new ManualResetEventSlim();
        using var release = new ManualResetEventSlim();
        SlimThreadPool pool = LeftoverPools.Create(_ =>
        {
            started.Set();
            release.Wait(Bounded.Timeout);
        });
        // Called from another thread: when the worker has exited before the call reaches its wait (a loaded machine), the
        // finish runs on the calling thread, and the item would hold this one until its own wait timed out.
        Task<ShutdownResult> drain = Task.Run(() => pool.ShutdownAsync(ShutdownMode.Drain));
        Bounded.Wait(started, "the finish to run the item");
        Task idle = pool.WaitForIdleAsync();
        Thread.Sleep(200);
        bool completedWhileRunning = idle.IsCompleted;
        release.Set();
        Bounded.Result(drain, "the drain");
        Assert.False(completedWhileRunning, "WaitForIdleAsync completed while an accepted item was still running (on the finishing thread)");
    }

    [Fact]
    public void GroupSend_InOneLateProducersItem_NeverRunsBesideTheGroupsItemAnotherLateProducerRuns()
    {
        var queue = new HoldAllQueue();
        using var pool = new SlimThreadPool(new SlimThreadPoolOptions { WorkerCount = 1, QueueFactory = () => queue, StarvationTimeout = Timeout.InfiniteTimeSpan });
        SlimThreadPoolGroup group = pool.CreateGroup();
        using var bStarted = new ManualResetEventSlim();
        using var sent = new ManualResetEventSlim();
        int inGroupItem = 0, overlapped = -1;
        queue.Close();
        Exception? sendFailure = null;
        var l1 = new Thread(() => pool.Queue(() =>
        {
            bStarted.Wait(TimeSpan.FromSeconds(5));
            try
            {
                group.SynchronizationContext.Send(_ => { Volatile.Write(ref overlapped, Volatile.Read(ref inGroupItem)); sent.Set(); }, null);
            }
            catch (ObjectDisposedException e)
            {
                sendFailure = e;
            }
        })) { IsBackground = true };
        var l2 = new Thread(() => group.Queue(() =>
        {
            Volatile.Write(ref inGroupItem, 1);
            bStarted.Set();
            sent.Wait(TimeSpan.FromSeconds(2));
            Volatile.Write(ref inGroupItem, 0);
        })) { IsBackground = true };
        l1.Start();
        l2.Start();
        Bounded.Wait(queue.Held, "both producers to reach their enqueue");
        pool.Dispose();
        queue.Open();
        Assert.True(l1.Join(Bounded.Timeout) && l2.Join(Bounded.Timeout), "a late producer hung");
        Assert.True(bStarted.IsSet, "the group's item ran");
        Assert.True(Volatile.Read(ref overlapped) != 1, "the serial group's Send callback ran on one late producer while the group's item ran on the other");
        Assert.IsType<ObjectDisposedException>(sendFailure); // the group's Send there can neither wait nor run inline
    }

    [Fact]
    public void BlockingScope_LeftOpenByAGroupItemALateProducerOfAnotherPoolRuns_EndsWithThatItem()
    {
        // A worker of pool B queues to a group of pool A as A shuts down: the group's turn lands after A's last look, so
        // B's worker runs it itself. An item of the turn opens a blocking scope on B (its thread's pool) and leaves it
        // open; it ends with that item (guarantee 9), so the turn's next item sees B's worker unblocked.
        var queue = new GatedQueue();
        using var poolA = queue.CreatePool();
        SlimThreadPoolGroup group = poolA.CreateGroup();
        using var poolB = TestPools.Create(workers: 1);
        using var done = new ManualResetEventSlim(false);
        int blockedSeenByTheNextItem = -1;
        queue.HoldNextEnqueue();
        poolB.Queue(() =>
        {
            group.Queue(() =>
            {
                _ = poolB.EnterBlocking(); // left open
                group.SynchronizationContext.Post(_ => Volatile.Write(ref blockedSeenByTheNextItem, poolB.BlockedWorkerCount), null);
            });
            done.Set();
        });
        Bounded.Wait(queue.Held, "pool B's worker to reach pool A's enqueue of the group's turn");
        poolA.Dispose();
        queue.Release();
        Bounded.Wait(done, "pool B's worker to run the group's turn");
        Assert.Equal(0, Volatile.Read(ref blockedSeenByTheNextItem));
    }

    // Holds every enqueue while closed.
    private sealed class HoldAllQueue : IWorkQueue
    {
        private readonly LockFreeWorkQueue _inner = new();
        private readonly ManualResetEventSlim _open = new(true);
        public CountdownEvent Held { get; } = new(2);
        public bool IsEmpty => _inner.IsEmpty;
        public int Count => _inner.Count;
        public void Close() => _open.Reset();
        public void Open() => _open.Set();
        public void Enqueue(in QueuedWorkItem item)
        {
            if (!_open.IsSet)
            {
                Held.Signal();
                _open.Wait(Bounded.Timeout);
            }

            _inner.Enqueue(item);
        }

        public bool TryDequeue(out QueuedWorkItem item) => _inner.TryDequeue(out item);
    }
}
