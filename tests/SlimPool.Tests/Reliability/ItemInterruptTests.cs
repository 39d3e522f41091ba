using SlimPool.Scheduling;
using SlimPool.Tests.Infrastructure;

namespace SlimPool.Tests.Reliability;

/// <summary>
/// A <see cref="Thread.Interrupt"/> meant for an item never kills a worker: one the item leaves pending as it returns,
/// and one aimed at a worker that has gone back to waiting for work. The built-in pool survives both (its own waits are
/// not interruptible; the review that found this ran the same item there as the control). It is not run here: the
/// interrupt would stay pending on one of the built-in pool's threads, and the next test code that waits on that
/// thread would throw. A failure here ends the test host: the interrupt is unhandled on the worker's thread.
/// </summary>
public sealed class ItemInterruptTests
{
    public static TheoryData<WorkQueueKind, IdleWaitKind, bool> Cases() => TestPools.QueueAndIdleWaitsWith(false, true);

    [Theory]
    [MemberData(nameof(Cases))]
    public void Item_LeavesItsThreadInterrupted_WorkerParksAndRunsTheNextItem(WorkQueueKind queue, IdleWaitKind idleWait, bool inGroup)
    {
        SlimThreadPool pool = TestPools.Create(queue, idleWait, workers: 1);
        try
        {
            SlimThreadPoolGroup group = pool.CreateGroup();
            using var first = new ManualResetEventSlim();
            QueueTo(pool, group, inGroup, () =>
            {
                first.Set(); // before the interrupt, which a Set would meet at its contended monitor
                WorkerInterrupts.LeaveOnWorker(pool);
            });
            Bounded.Wait(first, "the interrupting item");
            Thread.Sleep(100); // the worker goes idle and parks, the interrupt still pending (it died there before)
            AssertNextItemRuns(pool, group, inGroup);
        }
        finally
        {
            Bounded.Run(pool.Dispose, "the pool's dispose");
        }
    }

    [Theory]
    [MemberData(nameof(Cases))]
    public void Worker_InterruptedWhileItWaitsForWork_RunsTheNextItem(WorkQueueKind queue, IdleWaitKind idleWait, bool inGroup)
    {
        SlimThreadPool pool = TestPools.Create(queue, idleWait, workers: 1);
        try
        {
            SlimThreadPoolGroup group = pool.CreateGroup();
            Thread? worker = null;
            using var first = new ManualResetEventSlim();
            QueueTo(pool, group, inGroup, () =>
            {
                worker = Thread.CurrentThread;
                first.Set();
            });
            Bounded.Wait(first, "the first item");
            Thread.Sleep(100); // parked: spin-then-park spins for less, a kept group queue waits at most 20 ms first
            worker!.Interrupt(); // a watchdog's interrupt for an item that has already returned
            Thread.Sleep(50);
            AssertNextItemRuns(pool, group, inGroup);
        }
        finally
        {
            Bounded.Run(pool.Dispose, "the pool's dispose");
        }
    }

    [Fact]
    public void UninterruptedSpin_InterruptPending_NeitherThrowsNorDropsIt()
    {
        // A queue's protocol waits for another thread's stores with it: SpinWait's Thread.Sleep(0) threw there, with an
        // item claimed and not yet taken.
        Exception? failure = null;
        bool stillPending = false;
        var thread = new Thread(() =>
        {
            try
            {
                Thread.CurrentThread.Interrupt();
                var spinner = default(UninterruptedSpin);
                for (int i = 0; i < 100; i++)
                {
                    spinner.SpinOnce();
                }

                try
                {
                    Thread.Sleep(0);
                }
                catch (ThreadInterruptedException)
                {
                    stillPending = true;
                }
            }
            catch (Exception exception)
            {
                failure = exception;
            }
        });
        thread.Start();
        Assert.True(thread.Join(Bounded.Timeout), "the spinning thread did not end");
        Assert.Null(failure);
        Assert.True(stillPending, "the spin consumed the interrupt, which is the thread's next wait's");
    }

    private static void QueueTo(SlimThreadPool pool, SlimThreadPoolGroup group, bool inGroup, Action action)
    {
        if (inGroup)
        {
            group.Queue(action);
        }
        else
        {
            pool.Queue(action);
        }
    }

    private static void AssertNextItemRuns(SlimThreadPool pool, SlimThreadPoolGroup group, bool inGroup)
    {
        using var second = new ManualResetEventSlim();
        QueueTo(pool, group, inGroup, second.Set);
        Bounded.Wait(second, "the item after the interrupt");
        Assert.Equal(1, pool.LiveWorkerCount);
    }
}
