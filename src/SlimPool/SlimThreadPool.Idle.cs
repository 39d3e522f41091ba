namespace SlimPool;

/// <summary>Detecting idleness for <see cref="WaitForIdleAsync"/>, at no cost while nobody waits.</summary>
/// <remarks>
/// <para>"Idle" is read as: the queue is empty, then every worker's busy flag is 0. A worker raises its flag
/// (with a full fence) before it looks for an item and lowers it only after it found the queue empty, so an
/// item that left the queue before our look belongs to a worker whose flag stays 1 until the item is done: if
/// we then read every flag as 0, each item taken before our look has finished, and the pool was idle at the
/// moment of our look.</para>
/// <para>No missed completion: a waiter increments <c>_idleWaiterCount</c> (a full fence) and then looks; a
/// worker lowers its flag with an exchange (a full fence) and then reads <c>_idleWaiterCount</c>. Either the
/// waiter's look sees the last worker's flag down, or that worker sees the waiter and looks itself.</para>
/// <para>Long-running tasks from the pool's <see cref="TaskScheduler"/> run on threads of their own: they count in
/// <c>_longRunning</c> from before they are started until they return, and the one that brings it to 0 pairs with
/// the waiters the same way a worker lowering its flag does.</para>
/// </remarks>
public sealed partial class SlimThreadPool
{
    private readonly Lock _idleLock = new();
    // Guarded by _idleLock.
    private readonly List<TaskCompletionSource> _idleWaiters = [];
    // The number of entries in _idleWaiters; written under _idleLock, read by workers when they go idle.
    private int _idleWaiterCount;
    // Long-running tasks started and not yet returned.
    private int _longRunning;

    /// <summary>A long-running task of this pool's scheduler is about to start on a thread of its own.</summary>
    internal void OnLongRunningStarting() => Interlocked.Increment(ref _longRunning);

    /// <summary>A long-running task has returned. The decrement is a full fence before the read of the waiter count.</summary>
    internal void OnLongRunningFinished()
    {
        if (Interlocked.Decrement(ref _longRunning) == 0 && Volatile.Read(ref _idleWaiterCount) != 0)
        {
            CheckIdle();
        }
    }

    private bool IsIdleNow() =>
        Volatile.Read(ref _shutdownResult) is not null
        || (_queue.IsEmpty && BusyWorkerCount == 0 && Volatile.Read(ref _longRunning) == 0);

    // Completes the waiters if the pool is idle now (see the type's remarks).
    private void CheckIdle()
    {
        if (IsIdleNow())
        {
            CompleteIdleWaiters();
        }
    }

    private void CompleteIdleWaiters()
    {
        lock (_idleLock)
        {
            foreach (TaskCompletionSource waiter in _idleWaiters)
            {
                waiter.TrySetResult();
            }

            _idleWaiters.Clear();
            Volatile.Write(ref _idleWaiterCount, 0);
        }
    }

    private async Task WaitForIdleCancellableAsync(TaskCompletionSource waiter, CancellationToken cancellationToken)
    {
        try
        {
            await waiter.Task.WaitAsync(cancellationToken).ConfigureAwait(false);
        }
        catch (OperationCanceledException) when (cancellationToken.IsCancellationRequested && !waiter.Task.IsCompleted)
        {
            lock (_idleLock)
            {
                if (_idleWaiters.Remove(waiter))
                {
                    Interlocked.Decrement(ref _idleWaiterCount);
                }
            }

            throw;
        }
    }
}
