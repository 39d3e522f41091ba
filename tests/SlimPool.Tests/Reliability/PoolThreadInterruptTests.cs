using System.Reflection;
using SlimPool.Async;
using SlimPool.Queues;
using SlimPool.Tests.Infrastructure;

namespace SlimPool.Tests.Reliability;

/// <summary>
/// Interrupts on the pool's own threads and on the threads that call into its shutdown, where the pool's protocol goes
/// on after the item that left the interrupt: a long-running task's thread counting the task out, a worker on its way
/// out of a drain, the thread that runs a shutdown's leftovers and then finishes it, a thread that cancels a drain. Each
/// threw at a contended lock or a join half-way through that protocol (found by an adversarial review). A failure in a
/// worker's or a long-running thread's case ends the test host.
/// </summary>
public sealed class PoolThreadInterruptTests
{
    // A long-running task of the pool's TaskScheduler that leaves an interrupt pending on its own
    // thread (a thread the pool made) as it returns. LongRunningTasks.Run counts it out under a plain lock; when that
    // lock is contended the wait throws, out of the finally, out of the thread: the process ends (and the task is never
    // counted out, so the shutdown and WaitForIdleAsync would wait for ever).
    [Fact]
    public void LongRunningTask_LeavesAnInterruptPendingWhileTheCountLockIsContended_IsCountedOutAndTheShutdownFinishes()
    {
        SlimThreadPool pool = TestPools.Create(workers: 1);
        try
        {
            LongRunningTasks longRunning = pool.LongRunning;
            object gate = typeof(LongRunningTasks).GetField("_lock", BindingFlags.NonPublic | BindingFlags.Instance)!.GetValue(longRunning)!;
            using var returning = new ManualResetEventSlim();
            Task task;
            Monitor.Enter(gate); // re-entrant: StartNew's TryAccept takes it on this thread
            try
            {
                task = Task.Factory.StartNew(
                    () =>
                    {
                        returning.Set(); // before the interrupt, which a Set would meet at its contended monitor
                        Thread.CurrentThread.Interrupt(); // left pending on the pool's own thread for the task
                    },
                    CancellationToken.None,
                    TaskCreationOptions.LongRunning,
                    pool.TaskScheduler);
                Bounded.Wait(returning, "the long-running task to return");
                Thread.Sleep(200); // the thread now waits for the count's lock
            }
            finally
            {
                Monitor.Exit(gate);
            }

            Bounded.Wait(task, "the long-running task");
            Bounded.Until(() => longRunning.Count == 0, "the long-running task to be counted out");
            Bounded.Wait(pool.WaitForIdleAsync(), "the pool to be idle");
        }
        finally
        {
            Bounded.Run(pool.Dispose, "the pool's Dispose");
        }
    }

    // A 'watchdog' interrupt aimed at a worker after its item returned, landing while the worker's exit
    // path waits for the work-stealing queue's attach lock (DetachWorker's plain lock, contended). The interrupt
    // must stay pending or be dropped; it throws out of the worker's finally and ends the process.
    [Fact]
    public void WorkStealing_WatchdogInterruptsAWorkerWaitingForTheAttachLockOnItsWayOut_DisposeFinishes()
    {
        SlimThreadPool pool = TestPools.Create(WorkQueueKind.WorkStealing, IdleWaitKind.SpinThenPark, workers: 1);
        var queue = (WorkStealingWorkQueue)typeof(SlimThreadPool).GetField("_queue", BindingFlags.NonPublic | BindingFlags.Instance)!.GetValue(pool)!;
        var attachLock = (Lock)typeof(WorkStealingWorkQueue).GetField("_attachLock", BindingFlags.NonPublic | BindingFlags.Instance)!.GetValue(queue)!;
        Thread? worker = null;
        using var ran = new ManualResetEventSlim();
        pool.Queue(() =>
        {
            worker = Thread.CurrentThread;
            ran.Set();
        });
        Bounded.Wait(ran, "the item");
        Thread disposer;
        attachLock.Enter();
        try
        {
            disposer = new Thread(pool.Dispose) { IsBackground = true };
            disposer.Start();
            Bounded.Until(() => !worker!.IsAlive || (worker.ThreadState & ThreadState.WaitSleepJoin) != 0 && !disposer.Join(0), "the worker to block");
            Thread.Sleep(300); // the worker has left its idle wait and waits for the attach lock on its way out
            worker!.Interrupt(); // the watchdog: the item it meant to stop has returned
            Thread.Sleep(100);
        }
        finally
        {
            attachLock.Exit();
        }

        Assert.True(disposer.Join(Bounded.Timeout), "Dispose did not finish");
        Assert.True(worker!.Join(Bounded.Timeout), "the worker did not exit");
    }

    // An item the shutdown's finish runs on the disposing thread (a producer's item that landed after
    // the workers left) leaves an interrupt pending there. The finish then stops the slow-item watch and joins its thread
    // (SlimThreadPool.OnShutdownFinished): the join throws at the interrupt after the shutdown's result was set and before
    // the meter is disposed and the idle waiters are completed, so a WaitForIdleAsync registered before never completes.
    [Fact]
    public void Dispose_LeftoverItemLeavesAnInterruptPendingOnTheFinishingThread_IdleWaitersCompleteAndDisposeReturns()
    {
        // The leftover runs on whichever finisher takes the finish's lock first: the disposing thread or the shutdown
        // task's continuation. Rounds go on until it ran on the disposing thread in 10 of them.
        int onDisposer = 0;
        for (int round = 0; round < 200 && onDisposer < 10; round++)
        {
            if (RunRound())
            {
                onDisposer++;
            }
        }

        Assert.True(onDisposer > 0, "the leftover item never ran on the disposing thread");
    }

    // True once the leftover item ran on the disposing thread (the round then asserted); false if it ran elsewhere.
    private static bool RunRound()
    {
        SlimThreadPool pool = TestPools.Create(workers: 1, configure: o =>
        {
            o.Queue = WorkQueueKind.Locked;
            o.SlowItemThreshold = TimeSpan.FromSeconds(30);
        });
        var queue = (LockedWorkQueue)typeof(SlimThreadPool).GetField("_queue", BindingFlags.NonPublic | BindingFlags.Instance)!.GetValue(pool)!;
        var queueLock = (Lock)typeof(LockedWorkQueue).GetField("_lock", BindingFlags.NonPublic | BindingFlags.Instance)!.GetValue(queue)!;
        object longRunningLock = typeof(LongRunningTasks).GetField("_lock", BindingFlags.NonPublic | BindingFlags.Instance)!.GetValue(pool.LongRunning)!;

        Thread? worker = null;
        using var first = new ManualResetEventSlim();
        pool.Queue(() =>
        {
            worker = Thread.CurrentThread;
            first.Set();
        });
        Bounded.Wait(first, "the first item");

        Thread? disposer = null;
        Exception? disposeError = null;
        bool ranOnDisposer = false;
        using var leftoverRan = new ManualResetEventSlim();
        var producer = new Thread(() => pool.Queue(() =>
        {
            bool onDisposer = ReferenceEquals(Thread.CurrentThread, Volatile.Read(ref disposer));
            ranOnDisposer = onDisposer;
            leftoverRan.Set(); // before the interrupt: a Set with one pending throws at its contended monitor
            if (onDisposer)
            {
                Thread.CurrentThread.Interrupt(); // the disposer is this test's own thread; it ends after Dispose
            }
        })) { IsBackground = true };

        Task idle;
        queueLock.Enter();
        try
        {
            producer.Start();
            Thread.Sleep(200); // the producer waits for the queue's lock inside its publish, the pool still open
            Monitor.Enter(longRunningLock);
            try
            {
                disposer = new Thread(() =>
                {
                    try
                    {
                        pool.Dispose();
                    }
                    catch (Exception exception)
                    {
                        disposeError = exception;
                    }
                }) { IsBackground = true };
                disposer.Start();
                Assert.True(worker!.Join(Bounded.Timeout), "the worker did not exit");
                queueLock.Exit();
                Assert.True(producer.Join(Bounded.Timeout), "the producer did not return");
                idle = pool.WaitForIdleAsync(); // the leftover is queued: not idle
                Thread.Sleep(100); // the finishers wait for the long-running tasks' lock
            }
            finally
            {
                Monitor.Exit(longRunningLock);
            }
        }
        finally
        {
            if (queueLock.IsHeldByCurrentThread)
            {
                queueLock.Exit();
            }
        }

        Bounded.Wait(leftoverRan, "the leftover item");
        Assert.True(disposer.Join(Bounded.Timeout), "Dispose did not return");
        if (!ranOnDisposer)
        {
            Assert.True(disposeError is null, $"Dispose threw: {disposeError}");
            Bounded.Wait(idle, "the idle wait (round without the interrupt)");
            return false;
        }

        bool idleCompleted = idle.Wait(TimeSpan.FromSeconds(5));
        Assert.True(disposeError is null && idleCompleted, $"idle wait completed: {idleCompleted} ({idle.Status}); later idle wait completed: {pool.WaitForIdleAsync().IsCompleted}; Dispose threw: {disposeError}");
        return true;
    }

    // The same watchdog interrupt on a drain's way out, any queue: the last idle worker marks the
    // workers leaving (ExitBarrier.WaitToLeave, WorkerSet.MarkLeaving's plain lock), contended. It throws out of the
    // worker's loop and ends the process.
    [Fact]
    public void Drain_WatchdogInterruptsTheLastWorkerWaitingForTheWorkerSetLockAtTheExitBarrier_DisposeFinishes()
    {
        SlimThreadPool pool = TestPools.Create(WorkQueueKind.Locked, IdleWaitKind.SpinThenPark, workers: 1);
        object workerSet = typeof(SlimThreadPool).GetField("_workerSet", BindingFlags.NonPublic | BindingFlags.Instance)!.GetValue(pool)!;
        var setLock = (Lock)workerSet.GetType().GetField("_lock", BindingFlags.NonPublic | BindingFlags.Instance)!.GetValue(workerSet)!;
        FieldInfo closed = workerSet.GetType().GetField("_closed", BindingFlags.NonPublic | BindingFlags.Instance)!;
        Thread? worker = null;
        using var started = new ManualResetEventSlim();
        using var release = new ManualResetEventSlim();
        pool.Queue(() =>
        {
            worker = Thread.CurrentThread;
            started.Set();
            release.Wait(Bounded.Timeout);
        });
        Bounded.Wait(started, "the item to start");
        var disposer = new Thread(pool.Dispose) { IsBackground = true };
        disposer.Start();
        Bounded.Until(() => (bool)closed.GetValue(workerSet)!, "the drain to close the worker set");
        setLock.Enter();
        try
        {
            release.Set(); // the item returns; the worker finds the pool stopping and goes to the exit barrier
            Thread.Sleep(300); // it now waits for the worker set's lock in MarkLeaving
            worker!.Interrupt(); // the watchdog, for the item that has returned
            Thread.Sleep(100);
        }
        finally
        {
            setLock.Exit();
        }

        Assert.True(disposer.Join(Bounded.Timeout), "Dispose did not finish");
        Assert.True(worker!.Join(Bounded.Timeout), "the worker did not exit");
    }

    // A cancelled drain's abandon runs in the token's callback, on the thread that cancels
    // (ShutdownCoordinator.MarkAbandoning, first step WorkerSet.Abandon's plain lock). With an interrupt pending on
    // that thread and the lock contended, the callback throws before anything is marked: the cancellation is lost for good
    // (a token's callbacks run once), the shutdown stays a plain drain, the early result never comes, and an item that
    // waits for the pool's AbandonToken keeps the shutdown waiting.
    [Fact]
    public void ShutdownAsync_CancelledFromAThreadWithAnInterruptPendingWhileTheWorkerSetLockIsContended_AbandonsAndReturnsEarly()
    {
        SlimThreadPool pool = TestPools.Create(WorkQueueKind.Locked, IdleWaitKind.SpinThenPark, workers: 1);
        object workerSet = typeof(SlimThreadPool).GetField("_workerSet", BindingFlags.NonPublic | BindingFlags.Instance)!.GetValue(pool)!;
        var setLock = (Lock)workerSet.GetType().GetField("_lock", BindingFlags.NonPublic | BindingFlags.Instance)!.GetValue(workerSet)!;
        using var started = new ManualResetEventSlim();
        bool sawAbandon = false;
        using var itemDone = new ManualResetEventSlim(); // the early result comes while the item still runs
        CancellationToken abandonToken = pool.AbandonToken;
        pool.Queue(() =>
        {
            started.Set();
            sawAbandon = abandonToken.WaitHandle.WaitOne(TimeSpan.FromSeconds(5)); // stops at the abandon, else in 5 s
            itemDone.Set();
        });
        Bounded.Wait(started, "the item to start");
        using var cts = new CancellationTokenSource();
        Task<ShutdownResult> shutdown = pool.ShutdownAsync(ShutdownMode.Drain, cts.Token);
        Exception? cancelError = null;
        var canceller = new Thread(() =>
        {
            Thread.CurrentThread.Interrupt(); // the canceller's own, meant for its next wait
            try
            {
                cts.Cancel();
            }
            catch (Exception exception)
            {
                cancelError = exception;
            }

            try
            {
                Thread.Sleep(0); // consume it if it is still pending
            }
            catch (ThreadInterruptedException)
            {
            }
        });
        setLock.Enter();
        try
        {
            canceller.Start();
            Thread.Sleep(200); // the cancel's callback waits for the worker set's lock
        }
        finally
        {
            setLock.Exit();
        }

        Assert.True(canceller.Join(Bounded.Timeout), "the canceller did not return");
        bool early = ((IAsyncResult)shutdown).AsyncWaitHandle.WaitOne(TimeSpan.FromSeconds(2));
        ShutdownResult result = Bounded.Result(shutdown, "the shutdown");
        Bounded.Wait(itemDone, "the item that waits for the abandon");
        Assert.True(early && result.Mode == ShutdownMode.Abandon && sawAbandon,
            $"cancelled drain returned within 2 s: {early}; mode: {result.Mode}; item saw the abandon: {sawAbandon}; Cancel threw: {cancelError}");
    }
}
