namespace SlimPool.Workers;

/// <summary>
/// The pool's own threads (workers, the starvation guard, the slow-item watch) and <see cref="Thread.Interrupt"/>. An
/// interrupt on one of them is meant for an item it runs: one the item left pending after it returned, or one aimed at
/// the thread while it ran the item and caught up with it after. Every managed wait throws at a pending interrupt, a
/// contended lock's included, so the pool's own waits must not meet one, or a thread would die of it (the built-in
/// pool's waits are not interruptible; it survives such an item, and so must SlimPool). A worker drops a pending
/// interrupt before its idle protocol begins (<see cref="DropPending"/>), and the waits where a thread may park drop
/// one that arrives meanwhile (<see cref="MonitorWait"/>, <see cref="WaitOne"/>), as a spurious wake-up would end them.
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
}
