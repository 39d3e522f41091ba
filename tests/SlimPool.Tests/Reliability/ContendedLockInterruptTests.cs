using System.Collections.Concurrent;
using System.Reflection;
using SlimPool.Queues;
using SlimPool.Tests.Infrastructure;

namespace SlimPool.Tests.Reliability;

/// <summary>
/// An interrupt pending on a thread that waits for one of the pool's locks in the middle of its protocol: a worker's,
/// left by the item it ran, as its next dequeue waits for the locked queue's lock (contended by a producer) or for a lock
/// inside a queue of the user's own (<see cref="SlimThreadPoolOptions.QueueFactory"/>), or as a group's turn ends and
/// completes an idle waiter; a producer's, as its publish waits for the locked queue's lock. The wait threw: out of the
/// worker's loop, ending the process; out of a group's first <c>Queue</c>, with the item accepted and the group's turn
/// taken and never queued, so the group ran none of its items again; out of the turn's end, so the idle wait hung. The
/// protocol must finish and the interrupt stay pending for the thread's next wait, as on the built-in pool. A failure in
/// the worker's dequeue ends the test host.
/// </summary>
public sealed class ContendedLockInterruptTests
{
    [Fact]
    public void LockedQueue_InterruptPendingWhileTheDequeueWaitsForItsLock_WorkerRunsTheNextItem()
    {
        var queue = new LockedWorkQueue();
        var queueLock = (Lock)typeof(LockedWorkQueue).GetField("_lock", BindingFlags.NonPublic | BindingFlags.Instance)!.GetValue(queue)!;
        AssertNextItemRunsWithTheInterruptPending(queue, queueLock);
    }

    [Fact]
    public void CustomQueue_InterruptPendingWhileItsDequeueWaitsForALock_WorkerRunsTheNextItem()
    {
        var queue = new LockingQueue(lockEnqueue: false, lockDequeue: true);
        AssertNextItemRunsWithTheInterruptPending(queue, queue.Gate);
    }

    // The producer's side: a group's first item takes the group's turn and publishes it into the locked queue, whose lock
    // a worker holds. With an interrupt pending on the producer, the lock's wait threw out of the publish with the turn
    // taken and never queued: the item stayed accepted, and the group ran none of its items again.
    [Fact]
    public void LockedQueue_InterruptPendingOnAProducerWhileThePublishWaitsForItsLock_GroupRunsItsItems()
    {
        var queue = new LockedWorkQueue();
        var queueLock = (Lock)typeof(LockedWorkQueue).GetField("_lock", BindingFlags.NonPublic | BindingFlags.Instance)!.GetValue(queue)!;
        SlimThreadPool pool = TestPools.Create(workers: 1, configure: o => o.QueueFactory = () => queue);
        try
        {
            SlimThreadPoolGroup group = pool.CreateGroup();
            using var firstRan = new ManualResetEventSlim();
            using var secondRan = new ManualResetEventSlim();
            using var queueing = new ManualResetEventSlim();
            Exception? thrown = null;
            bool? stillPending = null;
            var producer = new Thread(() =>
            {
                queueing.Set(); // before the interrupt: a Set that met it at its contended monitor would end the process
                Thread.CurrentThread.Interrupt();
                try
                {
                    group.Queue(firstRan.Set);
                }
                catch (Exception exception)
                {
                    thrown = exception;
                }

                try
                {
                    Thread.Sleep(0);
                    stillPending = false;
                }
                catch (ThreadInterruptedException)
                {
                    stillPending = true;
                }
            });

            HoldThenRelease(queueLock, () =>
            {
                producer.Start();
                Bounded.Wait(queueing, "the producer to queue");
            }); // the publish spins, then waits for the lock, the interrupt pending

            Assert.True(producer.Join(Bounded.Timeout), "the producer did not return");
            Assert.Null(thrown);
            Assert.True(stillPending, "the producer's interrupt was dropped, not kept for its next wait");
            Bounded.Wait(firstRan, "the group's first item");
            group.Queue(secondRan.Set);
            Bounded.Wait(secondRan, "the group's next item");
        }
        finally
        {
            Bounded.Run(pool.Dispose, "the pool's dispose");
        }
    }

    // A group's last item leaves its thread interrupted while someone waits for the group to be idle: the turn's end
    // completes the waiter under the waiters' lock, here contended. The wait threw out of the turn, after the turn was
    // given back and before the waiters were completed: the idle wait hung, and the pool reported the interrupt as an
    // item's exception.
    [Fact]
    public void Group_InterruptPendingWhileItsTurnCompletesAnIdleWaiter_TheIdleWaitCompletes()
    {
        SlimThreadPool pool = TestPools.Create(workers: 1);
        try
        {
            SlimThreadPoolGroup group = pool.CreateGroup();
            using var go = new ManualResetEventSlim();
            using var returned = new ManualResetEventSlim();
            group.Queue(() =>
            {
                go.Wait(Bounded.Timeout);
                returned.Set(); // before the interrupt, which a Set would meet at its contended monitor
                WorkerInterrupts.LeaveOnWorker(pool);
            });
            Task idle = group.WaitForIdleAsync();
            object turns = PrivateField(group, "_turns");
            object waiters = PrivateField(turns, "_idleWaiters");
            var waitersLock = (Lock)PrivateField(waiters, "_lock");

            HoldThenRelease(waitersLock, () =>
            {
                go.Set();
                Bounded.Wait(returned, "the interrupting item to return");
            }); // the turn's end spins, then waits for the lock, the interrupt pending

            Bounded.Wait(idle, "the group's idle wait");
            using var next = new ManualResetEventSlim();
            group.Queue(next.Set);
            Bounded.Wait(next, "the group's next item");
            Assert.Equal(0, pool.UnhandledExceptionCount);
        }
        finally
        {
            Bounded.Run(pool.Dispose, "the pool's dispose");
        }
    }

    // A Dispose called on a thread with an interrupt pending (a producer's, or an item's left on a worker) begins the
    // shutdown (its flag set once, for good) and then tells the worker set, under its lock, here contended. The wait
    // threw between the two: the caller saw the interrupt, but the workers were never told to stop and the finish never
    // started, so every later Dispose waited for ever.
    [Fact]
    public void Dispose_InterruptPendingWhileItTellsTheWorkersUnderTheirContendedLock_TheShutdownFinishes()
    {
        SlimThreadPool pool = TestPools.Create(workers: 1);
        var workersLock = (Lock)PrivateField(PrivateField(pool, "_workerSet"), "_lock");
        using var disposing = new ManualResetEventSlim();
        var caller = new Thread(() =>
        {
            disposing.Set(); // before the interrupt: a Set that met it at its contended monitor would end the process
            Thread.CurrentThread.Interrupt();
            try
            {
                pool.Dispose();
            }
            catch (ThreadInterruptedException)
            {
                // the call's own wait for the workers may meet it: the caller's, as any wait's
            }
        });

        HoldThenRelease(workersLock, () =>
        {
            caller.Start();
            Bounded.Wait(disposing, "the caller to dispose");
        }); // the shutdown's begin spins, then waits for the lock, the interrupt pending

        Assert.True(caller.Join(Bounded.Timeout), "the interrupted Dispose did not return");
        Bounded.Run(pool.Dispose, "a later Dispose");
        Assert.True(pool.IsShutDown);
        Assert.Equal(0, pool.LiveWorkerCount);
    }

    // Holds the lock while `meanwhile` runs and 200 ms after: long enough for the thread under test to spin, then wait
    // for the lock with its interrupt pending. Then releases it.
    private static void HoldThenRelease(Lock gate, Action meanwhile)
    {
        gate.Enter();
        try
        {
            meanwhile();
            Thread.Sleep(200);
        }
        finally
        {
            gate.Exit();
        }
    }

    private static object PrivateField(object owner, string name) =>
        owner.GetType().GetField(name, BindingFlags.NonPublic | BindingFlags.Instance)!.GetValue(owner)!;

    // One worker runs an item that waits until a second item is queued and the queue's lock is held by this thread, then
    // interrupts its own thread and returns: the worker's dequeue of the second item blocks on the lock with the
    // interrupt pending. Once the lock is released the second item must run, and meet the interrupt at its first wait.
    private static void AssertNextItemRunsWithTheInterruptPending(IWorkQueue queue, Lock queueLock)
    {
        SlimThreadPool pool = TestPools.Create(workers: 1, configure: o => o.QueueFactory = () => queue);
        try
        {
            using var running = new ManualResetEventSlim();
            using var go = new ManualResetEventSlim();
            using var returned = new ManualResetEventSlim();
            using var secondRan = new ManualResetEventSlim();
            bool? secondSawInterrupt = null;
            pool.Queue(() =>
            {
                running.Set();
                go.Wait(Bounded.Timeout);
                returned.Set(); // before the interrupt, which a Set would meet at its contended monitor
                WorkerInterrupts.LeaveOnWorker(pool);
            });
            Bounded.Wait(running, "the interrupting item to start");
            pool.Queue(() =>
            {
                try
                {
                    Thread.Sleep(0);
                    secondSawInterrupt = false;
                }
                catch (ThreadInterruptedException)
                {
                    secondSawInterrupt = true;
                }

                secondRan.Set();
            });

            HoldThenRelease(queueLock, () =>
            {
                go.Set();
                Bounded.Wait(returned, "the interrupting item to return");
            }); // the worker's dequeue spins, then waits for the lock, the interrupt pending

            Bounded.Wait(secondRan, "the item after the interrupt");
            Assert.Equal(1, pool.LiveWorkerCount);
            Assert.True(secondSawInterrupt, "the interrupt the first item left was dropped, not kept for the thread's next wait");
        }
        finally
        {
            Bounded.Run(pool.Dispose, "the pool's dispose");
        }
    }

    // A group's turn spends its quantum with pool work waiting and queues itself again, after an item that left an
    // interrupt pending, into a user's queue whose enqueue waits for its contended lock. The enqueue threw out of the
    // turn, which stayed held and was never queued: the group never ran another item (found by an adversarial review).
    // The control runs the same without the interrupt.
    [Theory]
    [InlineData(true)]
    [InlineData(false)]
    public void GroupTurn_RequeuesItselfIntoAUsersQueueWhoseEnqueueLockIsContendedWithAnInterruptPending_TheGroupRunsOn(bool interrupt)
    {
        var queue = new LockingQueue(lockEnqueue: true, lockDequeue: false);
        var errors = new ConcurrentQueue<Exception>();
        SlimThreadPool pool = TestPools.Create(workers: 1, configure: o =>
        {
            o.QueueFactory = () => queue;
            o.UnhandledException = errors.Enqueue;
        });
        try
        {
            SlimThreadPoolGroup group = pool.CreateGroup(new SlimGroupOptions { MaxConcurrency = 1, MaxItemsPerTurn = 1 });
            using var started = new ManualResetEventSlim();
            using var go = new ManualResetEventSlim();
            using var returned = new ManualResetEventSlim();
            using var secondRan = new ManualResetEventSlim();
            using var poolItemRan = new ManualResetEventSlim();
            group.Queue(() =>
            {
                started.Set();
                go.Wait(Bounded.Timeout);
                returned.Set();
                if (interrupt)
                {
                    Thread.CurrentThread.Interrupt(); // as it returns: a watchdog's, late
                }
            });
            Bounded.Wait(started, "the first item");
            group.Queue(secondRan.Set);  // the turn's next item, behind its quantum of one
            pool.Queue(poolItemRan.Set); // pool work waiting: the turn queues itself again
            queue.Gate.Enter();
            try
            {
                go.Set();
                Bounded.Wait(returned, "the interrupting item to return");
                Thread.Sleep(300); // the turn's enqueue waits for the lock, the interrupt pending
            }
            finally
            {
                queue.Gate.Exit();
            }

            Bounded.Wait(poolItemRan, "the pool's item");
            Bounded.Wait(secondRan, "the group's second item (its turn lost?)");
            Assert.Empty(errors);
        }
        finally
        {
            Bounded.Run(pool.Dispose, "the pool's Dispose");
        }
    }
}
