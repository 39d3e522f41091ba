using SlimPool.Workers;

namespace SlimPool.Async;

/// <summary>
/// The long-running tasks of a pool's TaskScheduler, each on a thread of its own: counted from their acceptance until they
/// return. They are the pool's work: <c>WaitForIdleAsync</c> waits for them (<see cref="Workers.IdleTracker"/>), and so
/// does the pool's shutdown, which accepts none once it has begun (<see cref="WaitForAll"/>), as it waits for the items
/// its workers run.
/// </summary>
/// <remarks>
/// Acceptance and the shutdown's wait meet under one lock: <see cref="TryAccept"/> reads the pool's state under it, and
/// the shutdown has begun before it takes it in <see cref="WaitForAll"/>; so a task is either refused or counted
/// before the wait reads the count (no thread named after the pool starts after the shutdown returned). The wait holds
/// no other lock of the shutdown's: a task may call the shutdown meanwhile (a cancelled one returns its early result).
/// The count changes with interlocked operations, full fences that <see cref="Workers.IdleTracker"/> pairs with.
/// </remarks>
internal sealed class LongRunningTasks
{
    // The tasks whose one the current thread runs: a shutdown called there is finished elsewhere (ShutdownCoordinator).
    [ThreadStatic]
    private static LongRunningTasks? t_running;

    private readonly object _lock = new(); // a monitor: the shutdown's wait is Monitor.Wait, each return a PulseAll
    private int _count;                    // accepted and not yet returned

    /// <summary>The number of tasks accepted and not yet returned.</summary>
    public int Count => Volatile.Read(ref _count);

    /// <summary>Whether the current thread runs one of these tasks.</summary>
    public bool IsRunningOnCurrentThread => t_running == this;

    /// <summary>Counts a task in unless <paramref name="isClosed"/> reads true (read under the lock the shutdown's wait takes).</summary>
    public bool TryAccept(Func<bool> isClosed)
    {
        lock (_lock)
        {
            if (isClosed())
            {
                return false;
            }

            Interlocked.Increment(ref _count);
            return true;
        }
    }

    /// <summary>Runs an accepted task on the current thread (a thread of its own), then counts it out.</summary>
    /// <returns>Whether it was the last one running.</returns>
    public bool Run(Action run)
    {
        t_running = this;
        bool last;
        try
        {
            run();
        }
        finally
        {
            // The thread is the pool's own and ends after this: an interrupt the task left pending is nobody's, and must
            // not throw at the count's lock below (out of the thread: the process would end, and the task never counted
            // out, the shutdown waiting for it for ever). One that lands meanwhile is held off the same way.
            t_running = null;
            ThreadInterrupts.DropPending();
            using (ThreadInterrupts.Hold(_lock))
            {
                // Even if it threw: a task counted in for ever would hold the shutdown for ever.
                last = Interlocked.Decrement(ref _count) == 0;
                Monitor.PulseAll(_lock);
            }
        }

        return last;
    }

    /// <summary>
    /// Blocks until every accepted task has returned; call it once the pool accepts no more (see the remarks), and never on
    /// one of these tasks' threads (it would wait for itself: the shutdown finishes elsewhere when called there).
    /// </summary>
    public void WaitForAll()
    {
        System.Diagnostics.Debug.Assert(t_running != this, "the shutdown is never finished on one of its long-running tasks");
        lock (_lock)
        {
            while (_count > 0)
            {
                Monitor.Wait(_lock);
            }
        }
    }
}
