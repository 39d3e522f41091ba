namespace SlimPool.Async;

/// <summary>
/// The long-running tasks of a pool's TaskScheduler, each on a thread of its own: counted from their acceptance until they
/// return. They are the pool's work: <c>WaitForIdleAsync</c> waits for them (<see cref="Workers.IdleTracker"/>), and so
/// does the pool's shutdown, once it no longer accepts them (<see cref="WhenAllReturned"/>), as it waits for the items its
/// workers run.
/// </summary>
/// <remarks>
/// Acceptance and the shutdown's wait meet under one lock: <see cref="TryAccept"/> reads the pool's state under it, and
/// the shutdown closes the pool to such tasks before it takes it in <see cref="WhenAllReturned"/>; so a task is either
/// refused or counted before the wait reads the count (no thread named after the pool starts after the shutdown
/// returned). The count changes with interlocked operations, full fences that <see cref="Workers.IdleTracker"/> pairs with.
/// </remarks>
internal sealed class LongRunningTasks
{
    // The tasks whose one the current thread runs: a shutdown called there does not wait for that one (it is the caller).
    [ThreadStatic]
    private static LongRunningTasks? t_running;

    private readonly Lock _lock = new();
    private int _count;                          // accepted and not yet returned
    private TaskCompletionSource? _allReturned;  // made by a shutdown that waits; completed by the last return (under _lock)

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
            t_running = null;
            last = Returned(); // even if it threw: a task counted in for ever would hold the shutdown for ever
        }

        return last;
    }

    // Counts a task out; the last one completes the shutdown's wait, if one is made.
    private bool Returned()
    {
        TaskCompletionSource? allReturned = null;
        bool last;
        lock (_lock)
        {
            last = Interlocked.Decrement(ref _count) == 0;
            if (last)
            {
                (allReturned, _allReturned) = (_allReturned, null);
            }
        }

        allReturned?.TrySetResult();
        return last;
    }

    /// <summary>
    /// Completes once every accepted task has returned; call it once the pool accepts no more (see the remarks). On the
    /// thread of one of these tasks it does not wait (that task is the caller, and the others may wait for it).
    /// </summary>
    public Task WhenAllReturned()
    {
        lock (_lock)
        {
            if (_count == 0 || t_running == this)
            {
                return Task.CompletedTask;
            }

            return (_allReturned ??= new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously)).Task;
        }
    }
}
