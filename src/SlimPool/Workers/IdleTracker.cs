using SlimPool.Lifecycle;
using SlimPool.Queues;

namespace SlimPool.Workers;

/// <summary>Detects when a pool is idle, for <c>WaitForIdleAsync</c>, at no cost while nobody waits.</summary>
/// <remarks>
/// <para>"Idle" is read as: no long-running task, every worker's busy flag down, the queue and the priority lanes empty (a
/// lane's item may wait with no ticket queued for it until a racing producer publishes its own: see
/// <see cref="Scheduling.PriorityLanes"/>), every flag down and
/// unchanged since, and no long-running task again (<see cref="IsIdleNow"/>). A worker raises its flag (with a full
/// fence) before it looks for an item and lowers it only after it found the queue empty, and each slot counts its
/// flag's changes: a slot read down and unchanged on both sides of our look at the queue was idle at that moment, so
/// no item left the queue before the look without a worker still busy with it, and none was running then. One pass
/// over the flags after the look is not enough: a worker read idle early in the pass may take an item that another,
/// still busy with its own item at the look, queued after it and before the pass reached its flag.</para>
/// <para>No missed completion (<see cref="IdleWaiters"/>): a worker lowers its flag with an exchange (a full fence) and
/// then reads whether anybody waits (<see cref="OnWorkerIdle"/>). Either the waiter's look sees the last worker's flag
/// down, or that worker sees the waiter and looks itself.</para>
/// <para>The shutdown's own loop over what is queued (the finish, a worker's Dispose) counts the same way, before its
/// first look and until after its last item (<see cref="ShutdownCoordinator.IsRunningItems"/>); the finish completes every
/// waiter when it is done, and a worker's Dispose runs inside that worker's item, whose flag is up meanwhile.</para>
/// <para>Long-running tasks from the pool's TaskScheduler run on threads of their own: they count in
/// <see cref="Async.LongRunningTasks"/> from before they are started until they return, and the one that brings it to 0 pairs with
/// the waiters the same way a worker lowering its flag does. The count is read before the looks: a task publishes what
/// it queues before its decrement, so a 0 read first means its items are in the queue, or taken by a worker whose
/// flag is up, by the looks that follow; and again after them, for a task started by an item of a worker read
/// busy-then-idle meanwhile.</para>
/// </remarks>
internal sealed class IdleTracker(IWorkQueue queue, WorkerSet workers, ShutdownCoordinator shutdown, Async.LongRunningTasks longRunning, Func<Scheduling.PriorityLanes?> lanes)
{
    private readonly IdleWaiters _waiters = new();

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

    /// <summary>The last long-running task running has returned; its decrement was a full fence before the read of the waiter count.</summary>
    public void OnLongRunningFinished() => OnWorkerIdle();

    /// <summary>Completes every waiter: the pool has shut down.</summary>
    public void CompleteWaiters() => _waiters.CompleteAll();

    private bool IsIdleNow()
    {
        if (shutdown.IsFinished)
        {
            return true;
        }

        if (longRunning.Count != 0 || shutdown.IsRunningItems)
        {
            return false;
        }

        long changes = workers.BusyChangesIfNoneBusy();
        return changes >= 0
            && queue.IsEmpty
            && lanes() is not { IsEmpty: false }
            && workers.BusyChangesIfNoneBusy() == changes
            && longRunning.Count == 0
            && !shutdown.IsRunningItems;
    }
}
