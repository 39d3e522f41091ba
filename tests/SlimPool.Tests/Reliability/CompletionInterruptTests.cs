using System.Reflection;
using SlimPool.Scheduling;
using SlimPool.Tests.Infrastructure;
using SlimPool.Workers;

namespace SlimPool.Tests.Reliability;

/// <summary>
/// Completions the pool makes on a thread where an item may have left an interrupt pending, while a user's thread blocks
/// on what they complete (<c>Task.Wait</c>): the wake-up's monitor, contended, throws at the interrupt after the task
/// completed and before the waiter is pulsed. In a loaded CI run a group's turn handed a freed slot to a producer blocked
/// on its <c>QueueAsync</c>: the throw went out of the turn with the group's next item taken and never run, and the
/// producer slept on with its task complete. <see cref="ContendedTaskWait"/> holds the monitor for that instant.
/// </summary>
public sealed class CompletionInterruptTests
{
    private static readonly TimeSpan s_held = TimeSpan.FromMilliseconds(200);

    [Fact]
    public void CapacityGateRelease_InterruptPendingWhileAProducerBlocksOnItsSlot_TheProducerWakesAndTheInterruptStaysPending()
    {
        var gate = new CapacityGate(1);
        Assert.True(gate.TryAcquire());
        Task<bool> slot = gate.AcquireAsync(CancellationToken.None).AsTask();
        Exception? error = null;
        bool stillPending = false;
        var releaser = new Thread(() =>
        {
            Thread.CurrentThread.Interrupt(); // left by the item before, on a worker
            try
            {
                gate.Release();
            }
            catch (Exception exception)
            {
                error = exception;
            }

            stillPending = ThreadInterrupts.DropPending();
        }) { IsBackground = true };

        bool woke = ContendedTaskWait.Run(slot, releaser.Start, s_held);

        Assert.True(releaser.Join(Bounded.Timeout), "the releaser did not return");
        Assert.Null(error);
        Assert.True(stillPending, "the interrupt was not given back to the thread");
        Assert.True(woke, "the producer slept on with its slot handed over");
        Assert.True(Bounded.Result(slot, "the slot"));
    }

    // The CI failure's shape: a bounded pool, full; a group's item interrupts itself as it returns; the turn's next take
    // frees a slot and hands it to a producer blocked in the group's Queue. Every item must run, and the producer return.
    [Fact]
    public void GroupTurn_ItemLeavesAnInterruptAndTheNextTakeHandsASlotToABlockedProducer_EveryItemRunsAndTheProducerReturns() =>
        InSerialGroup(bound: 1, (pool, group, go) =>
        {
            using var ran = new CountdownEvent(2);
            group.Queue(() => ran.Signal()); // takes the one slot
            var producer = new Thread(() => group.Queue(() => ran.Signal())) { IsBackground = true }; // waits for room
            producer.Start();
            var gate = (CapacityGate)PrivateField(pool, "_gate");
            var line = (LinkedList<TaskCompletionSource<bool>>)PrivateField(gate, "_waiters");
            TaskCompletionSource<bool>? slot = null;
            Bounded.Until(() => (slot = line.First?.Value) is not null, "the producer to wait in line");

            ContendedTaskWait.HoldWhile(slot!.Task, producer, go.Set, s_held);

            Assert.True(producer.Join(Bounded.Timeout), "the producer slept on with its slot handed over");
            Bounded.Wait(ran, "the group's other items");
            Bounded.Wait(pool.WaitForIdleAsync(), "the pool to be idle");
        });

    // A group's turn completes the group's idle waiters as it ends, after its last item, which left an interrupt pending.
    [Fact]
    public void GroupWaitForIdle_TheLastItemLeavesAnInterruptAsTheTurnCompletesABlockedWaiter_TheWaiterWakes() =>
        InSerialGroup(bound: null, (_, group, go) =>
        {
            Task idle = group.WaitForIdleAsync();

            bool woke = ContendedTaskWait.Run(idle, go.Set, s_held);

            Assert.True(woke, "the idle waiter slept on with its task complete");
            using var after = new ManualResetEventSlim();
            group.Queue(after.Set);
            Bounded.Wait(after, "an item after it");
        });

    // A closed group's drained signal, completed by the turn that ran its last item.
    [Fact]
    public void GroupShutdown_TheLastItemLeavesAnInterruptAsTheTurnSignalsTheDrain_TheBlockedCallerWakes() =>
        InSerialGroup(bound: null, (_, group, go) =>
        {
            Task<ShutdownResult> shutdown = group.ShutdownAsync(ShutdownMode.Drain);

            bool woke = ContendedTaskWait.Run(shutdown, go.Set, s_held);

            Assert.True(woke, "the shutdown's caller slept on with its task complete");
            Assert.Equal(0, Bounded.Result(shutdown, "the shutdown").AbandonedCount);
        });

    // A one-worker pool (bounded or not) and a serial group running an item that waits for `go` and then interrupts its
    // own thread as it returns (a watchdog's interrupt, late); the body gets them once the item runs.
    private static void InSerialGroup(int? bound, Action<SlimThreadPool, SlimThreadPoolGroup, ManualResetEventSlim> body)
    {
        SlimThreadPool pool = TestPools.Create(workers: 1, configure: o => o.BoundedCapacity = bound);
        try
        {
            SlimThreadPoolGroup group = pool.CreateGroup(new SlimGroupOptions { MaxConcurrency = 1 });
            using var started = new ManualResetEventSlim();
            using var go = new ManualResetEventSlim();
            group.Queue(() =>
            {
                started.Set();
                go.Wait(Bounded.Timeout);
                Thread.CurrentThread.Interrupt();
            });
            Bounded.Wait(started, "the interrupting item");
            body(pool, group, go);
        }
        finally
        {
            Bounded.Run(pool.Dispose, "the pool's Dispose");
        }
    }

    private static object PrivateField(object owner, string name) =>
        owner.GetType().GetField(name, BindingFlags.NonPublic | BindingFlags.Instance)!.GetValue(owner)!;
}
