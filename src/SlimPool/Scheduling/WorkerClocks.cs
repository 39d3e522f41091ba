using SlimPool.Diagnostics;
using SlimPool.Workers;

namespace SlimPool.Scheduling;

/// <summary>
/// The starvation guard's view of its workers' CPU clocks over one period: which of its workers are blocked rather
/// than computing or waiting for a CPU (<see cref="ThreadCpuClock"/>). A worker that waits in a run queue
/// (more threads than cores, a cgroup's quota spent) completes nothing, yet is not blocked: another thread would only
/// queue behind it.
/// </summary>
/// <remarks>
/// <para><b>Blocked.</b> A worker is blocked when it is not runnable now (not state R: not on a CPU, not in a run queue,
/// not held back by a quota) and, if it stayed busy through the whole period, was also runnable (time on a CPU plus
/// run-queue wait) for less than <see cref="BlockedRunnableShare"/> of it. Both, because each alone
/// misleads: the kernel adds run-queue wait to a thread's clock only when the thread next gets a CPU (a worker
/// throttled through a whole period reads as neither running nor waiting), and a snapshot of the state catches a
/// worker that blocks in short waits at a bad moment. A worker that became busy during the period has only the
/// snapshot, and so has an idle one: parked while items wait (the guard reads only while they do) it is of no more
/// use than a blocked one; woken and waiting for a CPU, it is runnable. A worker whose thread has not yet published
/// its id (<see cref="WorkerState.OsThreadId"/> 0: started, its start hook not yet returned) is <i>starting</i>, and
/// counts as runnable.</para>
/// <para><b>Ownership.</b> One instance per guard, used only by the guard's thread: every field here is its own.</para>
/// <para><b>Busy through the period.</b> <see cref="Begin"/> keeps each busy worker's count of busy-flag changes
/// (<see cref="WorkerState.BusyChanges"/>, odd while busy); <see cref="End"/> counts the worker as busy through the
/// period only if the count is unchanged after its second clock read: then the same thread stayed busy in that slot
/// between the two reads (a worker that retires or exits lowers its flag first). The worker writes its thread id
/// (<see cref="WorkerState.OsThreadId"/>) before it first raises its flag (a full fence), and both ends read the count
/// before the id (acquire), so the id read belongs to the thread whose count was seen.</para>
/// <para><b>Cost.</b> At most three reads of a small /proc file per worker per period, only while the guard watches
/// (items wait), and for at most <see cref="MaxSampled"/> workers (permanent workers first): a pool grown to thousands
/// of blocked spares does not pay thousands of reads a period.</para>
/// </remarks>
internal sealed class WorkerClocks
{
    /// <summary>
    /// A worker busy through a period is blocked only if it was runnable (on a CPU or waiting for one) for less than this
    /// share of the period. A quarter leaves room for a host that takes whole CPUs away for a while: the thread that
    /// was on the CPU then is credited neither time on a CPU nor time waiting.
    /// </summary>
    public const double BlockedRunnableShare = 0.25;

    /// <summary>The most workers whose clocks are read in one period.</summary>
    public const int MaxSampled = 64;

    private readonly WorkerState?[] _states = new WorkerState?[MaxSampled];
    private readonly long[] _changes = new long[MaxSampled];
    private readonly int[] _threadIds = new int[MaxSampled];
    private readonly ThreadCpuTimes[] _start = new ThreadCpuTimes[MaxSampled];
    private int _count;

    /// <summary>Reads the clock of every busy worker (at most <see cref="MaxSampled"/>) as a period begins.</summary>
    public void Begin(WorkerSet workers)
    {
        Array.Clear(_states, 0, _count);
        _count = 0;
        int slots = workers.SlotCount;
        for (int slot = 0; slot < slots && _count < MaxSampled; slot++)
        {
            if (workers.Occupant(slot) is not WorkerState state)
            {
                continue;
            }

            long changes = state.BusyChanges; // before the id: see the remarks
            int threadId = state.OsThreadId;
            if ((changes & 1) == 0 || !ThreadCpuClock.TryRead(threadId, out ThreadCpuTimes times))
            {
                continue; // idle (cannot be busy through the period), or no clock
            }

            _states[_count] = state;
            _changes[_count] = changes;
            _threadIds[_count] = threadId;
            _start[_count] = times;
            _count++;
        }
    }

    /// <summary>
    /// Classifies the live workers (at most <see cref="MaxSampled"/>), <paramref name="wallNanoseconds"/> after
    /// <see cref="Begin"/>.
    /// </summary>
    public WorkerPeriod End(WorkerSet workers, long wallNanoseconds)
    {
        int sampled = 0;
        int blocked = 0;
        double blockedBelow = BlockedRunnableShare * wallNanoseconds;
        int slots = workers.SlotCount;
        for (int slot = 0; slot < slots && sampled < MaxSampled; slot++)
        {
            if (workers.Occupant(slot) is not WorkerState state)
            {
                continue;
            }

            long changes = state.BusyChanges; // before the id: see the remarks
            int threadId = state.OsThreadId;
            if (threadId == 0)
            {
                // Starting: its thread was started and has not yet published its id, which it does after its start
                // hook (the pool reads clocks only where every worker publishes one). Runnable: it is on its way to
                // the queue; a hook that blocks is not the guard's to cover, as its scopes start no spare; and a
                // period that read no other worker would otherwise count as all blocked and start a spare, which
                // under a small CPU quota starts as slowly and reads the same (AddsSpare). A thread whose start failed
                // leaves its slot at once (WorkerSet), so no slot stays starting for good.
                sampled++;
                continue;
            }

            bool runnableByTime = false;
            int begun = (changes & 1) == 0 ? -1 : Array.IndexOf(_states, state, 0, _count);
            if (begun >= 0 && _changes[begun] == changes && _threadIds[begun] == threadId)
            {
                // The clock first, then the count again: unchanged means busy through the whole period.
                if (!ThreadCpuClock.TryRead(threadId, out ThreadCpuTimes end))
                {
                    continue;
                }

                runnableByTime = state.BusyChanges == changes
                    && end.RunnableNanoseconds - _start[begun].RunnableNanoseconds >= blockedBelow;
            }

            bool runnableNow = false;
            if (!runnableByTime && !ThreadCpuClock.TryReadIsRunnable(threadId, out runnableNow))
            {
                continue; // exited meanwhile
            }

            sampled++;
            if (!runnableByTime && !runnableNow)
            {
                blocked++;
            }
        }

        return new WorkerPeriod(sampled, blocked);
    }
}
