using SlimPool.Lifecycle;
using SlimPool.Queues;

namespace SlimPool.Workers;

/// <summary>Detects when a pool is idle, for <c>WaitForIdleAsync</c>, at no cost while nobody waits.</summary>
/// <remarks>
/// <para>"Idle" is read as: the queue is empty, then every worker's busy flag is 0. A worker raises its flag (with a
/// full fence) before it looks for an item and lowers it only after it found the queue empty, so an item that left
/// the queue before our look belongs to a worker whose flag stays 1 until the item is done: if we then read every
/// flag as 0, each item taken before our look has finished, and the pool was idle at the moment of our look.</para>
/// <para>No missed completion (<see cref="IdleWaiters"/>): a worker lowers its flag with an exchange (a full fence) and
/// then reads whether anybody waits (<see cref="OnWorkerIdle"/>). Either the waiter's look sees the last worker's flag
/// down, or that worker sees the waiter and looks itself.</para>
/// <para>Long-running tasks from the pool's TaskScheduler run on threads of their own: they count in
/// <c>_longRunning</c> from before they are started until they return, and the one that brings it to 0 pairs with
/// the waiters the same way a worker lowering its flag does.</para>
/// </remarks>
internal sealed class IdleTracker(IWorkQueue queue, WorkerSet workers, ShutdownCoordinator shutdown)
{
    private readonly IdleWaiters _waiters = new();
    private int _longRunning;  // long-running tasks started and not yet returned

    public Task WaitForIdleAsync(CancellationToken cancellationToken) => _waiters.WaitAsync(IsIdleNow, cancellationToken);

    /// <summary>A worker has just lowered its busy flag (with a full fence).</summary>
    public void OnWorkerIdle()
    {
        if (_waiters.Any)
        {
            long registered = _waiters.Registered; // before the test: a waiter that comes later tests for itself
            if (IsIdleNow())
            {
                _waiters.CompleteUpTo(registered);
            }
        }
    }

    /// <summary>A long-running task of the pool's scheduler is about to start on a thread of its own.</summary>
    public void OnLongRunningStarting() => Interlocked.Increment(ref _longRunning);

    /// <summary>A long-running task has returned. The decrement is a full fence before the read of the waiter count.</summary>
    public void OnLongRunningFinished()
    {
        if (Interlocked.Decrement(ref _longRunning) == 0)
        {
            OnWorkerIdle();
        }
    }

    /// <summary>Completes every waiter: the pool has shut down.</summary>
    public void CompleteWaiters() => _waiters.CompleteAll();

    private bool IsIdleNow() =>
        shutdown.IsFinished || (queue.IsEmpty && workers.BusyCount() == 0 && Volatile.Read(ref _longRunning) == 0);
}
