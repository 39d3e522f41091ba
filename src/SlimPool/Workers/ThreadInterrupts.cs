using System.Runtime.CompilerServices;
using SlimPool.Queues;

namespace SlimPool.Workers;

/// <summary>
/// The pool's own threads (workers, the starvation guard, the slow-item watch) and <see cref="Thread.Interrupt"/>. An
/// interrupt on one of them is meant for an item it runs: one the item left pending after it returned, or one aimed at
/// the thread while it ran the item and caught up with it after. Every managed wait throws at a pending interrupt, a
/// contended lock's included, so the pool's own waits must not meet one, or a thread would die of it (the built-in
/// pool's waits are not interruptible; it survives such an item, and so must SlimPool). A worker drops a pending
/// interrupt before its idle protocol begins (<see cref="DropPending"/>), and the waits where a thread may park drop
/// one that arrives meanwhile (<see cref="MonitorWait"/>, <see cref="WaitOne"/>), as a spurious wake-up would end them.
/// The locks of the wake-up, idle, exit and back-pressure protocols, of the queues the pool ships (the locked queue's,
/// a lock-free ring's growth, the work-stealing queue's attach lock), of the idle waiters (a group's turn completes
/// them as it ends) and of the worker set (a shutdown's begin tells it after setting its flag for good), which
/// producers and workers take in the middle of a protocol, neither throw at one nor drop it (<see cref="Hold(Lock)"/>):
/// they give it back to the thread once released; a dequeue from or an enqueue into a queue of the user's own is
/// retried the same way (<see cref="TryDequeue"/>, <see cref="Enqueue"/>), and the lock of the list of groups, which a
/// shutdown's finish reads after its leftovers, is held as those are. Where the pool completes a task or sets an event
/// that a user's thread may wait on synchronously (a slot handed to a waiting producer, idle waiters, a group's drained
/// signal, a Send's caller, the shutdown's own tasks), a pending interrupt is held off for the completion
/// (<see cref="HoldOffPending"/>), and so is one pending on the thread that finishes a shutdown, for the whole finish.
/// The locks a user's own call takes before it changes anything (a group's shutdown, a <c>CreateGroup</c>) throw at an
/// interrupt pending on a thread that contends them, out of that
/// call, as the call's own wait would.
/// </summary>
internal static class ThreadInterrupts
{
    // Set for ever: a zero wait on it costs about 100 ns and throws only at a pending interrupt (a Thread.Sleep(0) costs a
    // system call).
    private static readonly ManualResetEvent s_alwaysSet = new(initialState: true);

    /// <summary>Drops an interrupt pending on the current thread, if any; true if there was one.</summary>
    public static bool DropPending()
    {
        try
        {
            s_alwaysSet.WaitOne(0);
            return false;
        }
        catch (ThreadInterruptedException)
        {
            return true;
        }
    }

    /// <summary>
    /// Takes an interrupt pending on the current thread and gives it back when the scope ends, around a completion that
    /// may wake a thread blocked on it: completing a task runs a synchronous waiter's wake-up inline (<c>Task.Wait</c>
    /// sets an event of its own, even for a task whose continuations run asynchronously), and a slim event's
    /// <c>Set</c> pulses its waiters under the event's monitor. Contended (the waiter between its count and its wait),
    /// that monitor throws at a pending interrupt after the state was set and before the pulse: the waiter sleeps on with
    /// its task complete, and the throw leaves the pool's step half done (a slot taken for a waiter and the item that
    /// freed it never run). An interrupt that lands from another thread during the completion itself is not held off:
    /// no managed wait can mask one.
    /// </summary>
    public static PendingScope HoldOffPending() => new(DropPending());

    /// <summary>
    /// <see cref="Monitor.Wait(object, int)"/> on a pool thread, with <paramref name="gate"/> held: an interrupt ends it as
    /// a spurious wake-up does (the monitor is held again), and is dropped. Callers re-check what they wait for.
    /// </summary>
    public static bool MonitorWait(object gate, int millisecondsTimeout)
    {
        try
        {
            return Monitor.Wait(gate, millisecondsTimeout);
        }
        catch (ThreadInterruptedException)
        {
            return false;
        }
    }

    /// <summary>
    /// <see cref="WaitHandle.WaitOne(int)"/> on a pool thread: an interrupt ends it as a spurious wake-up does (true, so
    /// the caller looks again before it waits again), and is dropped.
    /// </summary>
    public static bool WaitOne(WaitHandle handle, int millisecondsTimeout)
    {
        try
        {
            return handle.WaitOne(millisecondsTimeout);
        }
        catch (ThreadInterruptedException)
        {
            return true;
        }
    }

    /// <summary>
    /// Holds <paramref name="gate"/> until the scope ends, whatever interrupt is pending or lands meanwhile: a contended
    /// lock's wait throws at one, which in the pool's wake-up and idle protocols would leave a step half done (a worker
    /// popped from the parked stack and never woken, a slot handed to nobody). The interrupt is taken, the wait goes on,
    /// and the scope gives it back to the thread as it ends, for the thread's next wait of its own (a producer's) or its
    /// next idle drop (a worker's).
    /// </summary>
    public static LockScope Hold(Lock gate)
    {
        bool interrupted = false;
        while (true)
        {
            try
            {
                gate.Enter();
                return new LockScope(gate, interrupted);
            }
            catch (ThreadInterruptedException)
            {
                interrupted = true;
            }
        }
    }

    /// <summary><see cref="Hold(Lock)"/> for a monitor (<see cref="Monitor.Wait(object, int)"/> needs one).</summary>
    public static MonitorScope Hold(object gate)
    {
        bool interrupted = false;
        while (true)
        {
            bool taken = false;
            try
            {
                Monitor.Enter(gate, ref taken);
                return new MonitorScope(gate, interrupted);
            }
            catch (ThreadInterruptedException) when (!taken)
            {
                interrupted = true;
            }
        }
    }

    /// <summary>
    /// <see cref="IWorkQueue.TryDequeue"/> on a thread that may have an interrupt pending (a worker after an item that
    /// left one, the thread that takes a shutdown's leftovers): a queue whose dequeue waits for a contended lock (a queue
    /// of the user's own, <see cref="SlimThreadPoolOptions.QueueFactory"/>) throws there, before it took anything, and
    /// out of a worker's loop that would end the process. The dequeue is tried again and the interrupt given back
    /// after, for the thread's next wait (the next item's), as <see cref="Hold(Lock)"/> gives it back. The try costs
    /// nothing until an interrupt is thrown.
    /// </summary>
    public static bool TryDequeue(IWorkQueue queue, out QueuedWorkItem item)
    {
        try
        {
            return queue.TryDequeue(out item);
        }
        catch (ThreadInterruptedException)
        {
            return TryDequeueInterrupted(queue, out item);
        }
    }

    /// <summary>
    /// <see cref="IWorkQueue.Enqueue"/> into a queue of the user's own on a thread that may have an interrupt pending (a
    /// group's turn re-publishing itself after an item that left one): an enqueue that waits for a contended lock throws
    /// there, before it added anything; it is tried again and the interrupt given back after.
    /// </summary>
    public static void Enqueue(IWorkQueue queue, in QueuedWorkItem item)
    {
        try
        {
            queue.Enqueue(item);
        }
        catch (ThreadInterruptedException)
        {
            EnqueueInterrupted(queue, item);
        }
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static void EnqueueInterrupted(IWorkQueue queue, in QueuedWorkItem item)
    {
        try
        {
            while (true)
            {
                try
                {
                    queue.Enqueue(item);
                    return;
                }
                catch (ThreadInterruptedException)
                {
                    // another landed meanwhile: one is given back for both
                }
            }
        }
        finally
        {
            Thread.CurrentThread.Interrupt(); // given back however the retry ends, a throw of the queue's own included
        }
    }

    // The retry after an interrupt was taken: again until a dequeue returns, then the interrupt goes back to the thread.
    [MethodImpl(MethodImplOptions.NoInlining)]
    private static bool TryDequeueInterrupted(IWorkQueue queue, out QueuedWorkItem item)
    {
        try
        {
            while (true)
            {
                try
                {
                    return queue.TryDequeue(out item);
                }
                catch (ThreadInterruptedException)
                {
                    // another landed meanwhile: one is given back for both
                }
            }
        }
        finally
        {
            Thread.CurrentThread.Interrupt(); // given back however the retry ends, a throw of the queue's own included
        }
    }

    /// <summary>An interrupt held off by <see cref="HoldOffPending"/>: given back to the thread on Dispose.</summary>
    public readonly ref struct PendingScope(bool interrupted)
    {
        public void Dispose()
        {
            if (interrupted)
            {
                Thread.CurrentThread.Interrupt();
            }
        }
    }

    /// <summary>A lock held by <see cref="Hold(Lock)"/>: released, and a taken interrupt given back, on Dispose.</summary>
    public readonly ref struct LockScope(Lock gate, bool interrupted)
    {
        public void Dispose()
        {
            gate.Exit();
            if (interrupted)
            {
                Thread.CurrentThread.Interrupt();
            }
        }
    }

    /// <summary>A monitor held by <see cref="Hold(object)"/>: released, and a taken interrupt given back, on Dispose.</summary>
    public readonly ref struct MonitorScope(object gate, bool interrupted)
    {
        public void Dispose()
        {
            Monitor.Exit(gate);
            if (interrupted)
            {
                Thread.CurrentThread.Interrupt();
            }
        }
    }
}
