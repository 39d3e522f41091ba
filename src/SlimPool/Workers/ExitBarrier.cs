using SlimPool.Queues;
using SlimPool.Scheduling;

namespace SlimPool.Workers;

/// <summary>
/// How a stopping pool's workers leave a drain: together, once none of them runs an item and nothing is queued. So a
/// worker blocked in an item still has the others to run what it waits for (a <c>Send</c>'s callback, a task it queued,
/// a callback posted meanwhile), and no worker leaves a slot behind that a blocked worker's spare would need; an abandon
/// lets them all leave at once.
/// </summary>
/// <remarks>
/// <para><b>Leaving.</b> A worker that finds the queue empty after the stop counts itself idle (<c>_idle</c>, an
/// interlocked increment: a full fence), then reads the live count; when every live worker is idle it looks at the queue
/// once more, after that read, and if it is still empty sets <c>_leaving</c>, which is final, and everyone leaves. A
/// worker that published an item did so before it counted itself idle, so whoever reads its count sees its item too and
/// stays for it. Once every live worker was idle with nothing queued, no worker starts a spare (only one inside an item
/// does), the starvation guard no longer once <see cref="WorkerSet.MarkLeaving"/> was called under the set's lock (a
/// spare it started before is live, and leaves with the others), and nothing but a continuation from outside can
/// arrive, which the shutdown's finish runs after the workers leave. A leaving worker stays counted idle: the count only serves the decision, made once.</para>
/// <para><b>Waiting.</b> Otherwise the worker waits on the monitor: woken by the count that makes everyone idle, by a
/// publish during the shutdown (<see cref="OnQueued"/>), by a spare that retires (<see cref="OnWorkerRetired"/>: the
/// live count it drops may be the one the others wait for), by the abandon, or after <see cref="MaxWaitMilliseconds"/>.
/// A sleeper registers (an interlocked increment under the lock: a full fence) and then looks again under the lock; a
/// publisher publishes (a full fence), a retiring spare leaves the live count (the same), and each then reads the
/// registrations and pulses under the lock, so either the look sees the item or the lower count, or the pulse comes
/// after the sleeper waits. ExitBarrier.pml checks both with no timeout on the wait.</para>
/// </remarks>
internal sealed class ExitBarrier(WorkerSet workers, IWorkQueue queue, Func<PriorityLanes?>? lanes)
{
    /// <summary>A sleeper's longest wait; every wake it needs is signalled, so this only bounds a missed one.</summary>
    internal const int MaxWaitMilliseconds = 50;

    private readonly object _lock = new(); // a monitor: sleepers wait on it
    private int _idle;      // workers waiting to leave
    private int _sleepers;  // workers waiting on the monitor now
    private int _leaving;   // 1 once every live worker was idle with nothing queued: final

    /// <summary>
    /// A worker found the queue empty after the stop: returns true when it may leave (everyone is idle and nothing is
    /// queued, or the pool is abandoning), false when an item is queued for it to take.
    /// </summary>
    public bool WaitToLeave()
    {
        if (Volatile.Read(ref _leaving) != 0)
        {
            return true;
        }

        Interlocked.Increment(ref _idle);
        while (true)
        {
            if (Volatile.Read(ref _leaving) != 0 || workers.IsAbandoning)
            {
                return true;
            }

            if (Volatile.Read(ref _idle) >= workers.LiveCount)
            {
                if (!IsNothingQueued)
                {
                    break;
                }

                workers.MarkLeaving(); // no spare of the guard's from here on (see WorkerSet.TryStartSpare)
                Volatile.Write(ref _leaving, 1);
                WakeAll();
                return true;
            }

            if (!IsNothingQueued)
            {
                break;
            }

            using (ThreadInterrupts.Hold(_lock))
            {
                Interlocked.Increment(ref _sleepers);
                if (Volatile.Read(ref _leaving) == 0 && !workers.IsAbandoning && Volatile.Read(ref _idle) < workers.LiveCount && IsNothingQueued)
                {
                    ThreadInterrupts.MonitorWait(_lock, MaxWaitMilliseconds);
                }

                Interlocked.Decrement(ref _sleepers);
            }
        }

        Interlocked.Decrement(ref _idle); // an item to take: busy again
        return false;
    }

    // The queue and the priority lanes: a lane's item may wait with no ticket queued for it (PriorityLanes), and it is
    // the drain's as much as a queued item (WorkerLoop takes it straight from the lane once the pool stops). A lane item
    // is added before its ticket is published, so the publish's wake (OnQueued) follows the add as it follows an enqueue.
    private bool IsNothingQueued => queue.IsEmpty && lanes?.Invoke() is not { IsEmpty: false };

    /// <summary>An item was published during the shutdown (after the publish's full fence): wakes the sleepers.</summary>
    public void OnQueued() => WakeSleepers();

    /// <summary>
    /// A spare has retired while the pool is closed (<see cref="WorkerSet.TryRetire"/>, after its decrement of the live
    /// count, a full fence): wakes the sleepers, since every worker still live may now be idle.
    /// </summary>
    public void OnWorkerRetired() => WakeSleepers();

    private void WakeSleepers()
    {
        if (Volatile.Read(ref _sleepers) != 0)
        {
            WakeAll();
        }
    }

    /// <summary>Wakes every sleeper (the abandon, or the last worker to go idle).</summary>
    public void WakeAll()
    {
        using (ThreadInterrupts.Hold(_lock))
        {
            Monitor.PulseAll(_lock);
        }
    }
}
