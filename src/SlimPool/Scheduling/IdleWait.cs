using SlimPool.Queues;

namespace SlimPool.Scheduling;

/// <summary>
/// How a pool's workers wait for work, and how producers wake them. The protocol every implementation
/// follows to never lose a wake-up (a queued item while every worker sleeps):
/// </summary>
/// <remarks>
/// <para><b>Producer</b> (<see cref="Publisher"/>): publish the item in the queue, execute a full fence,
/// then call <see cref="OnWorkQueued"/>, which reads the idle state. The fence may be the queue's own
/// interlocked publication (<see cref="IFencedEnqueue"/>).</para>
/// <para><b>Worker</b> (<see cref="WaitForWork"/>): announce itself idle with an interlocked write (a full
/// fence), then re-check the queue (and <see cref="IsStopping"/>), and only then block.</para>
/// <para>This is the store-buffer (Dekker) pattern: each side writes, fences, then reads what the other wrote.
/// With both fences, the two cannot both miss each other: either the producer sees the announcement and
/// wakes the worker (the wake is remembered if the worker has not blocked yet), or the worker's re-check sees
/// the item and does not block.</para>
/// </remarks>
internal abstract class IdleWait
{
    private volatile bool _stopping;

    protected IdleWait(IWorkQueue queue) => Queue = queue;

    /// <summary>Set by <see cref="Stop"/>; once set, workers exit after the queue is seen empty.</summary>
    public bool IsStopping => _stopping;

    protected IWorkQueue Queue { get; }

    /// <summary>
    /// A spare's last look before it retires (after its wait timed out and it left the idle state with a full fence):
    /// whether nothing is queued that it should stay for.
    /// </summary>
    public virtual bool IsEmptyForALeavingSpare => Queue.IsEmpty;

    /// <summary>Worker thread, once, before its first look at the queue.</summary>
    public virtual void OnWorkerStarted(int worker)
    {
    }

    /// <summary>Producer, after publishing an item and a full fence: wakes a worker if one is due.</summary>
    public abstract void OnWorkQueued();

    /// <summary>Worker thread, after it took an item from the queue.</summary>
    public virtual void OnWorkTaken(int worker)
    {
    }

    /// <summary>
    /// Worker thread, after the queue was seen empty: returns when the worker should look again (work may
    /// have arrived, or <see cref="IsStopping"/> is set). May return spuriously.
    /// </summary>
    /// <param name="worker">The worker's index.</param>
    /// <param name="millisecondsTimeout">-1 to wait for work indefinitely; otherwise how long a spare worker waits.</param>
    /// <returns>
    /// <see langword="false"/> only when the wait timed out and the worker has left the idle state cleanly (no
    /// wake is addressed to it), so it may exit; <see langword="true"/> otherwise.
    /// </returns>
    public abstract bool WaitForWork(int worker, int millisecondsTimeout);

    /// <summary>
    /// Worker thread, each time it found the queue empty after <see cref="Stop"/>, before it waits for the others to be
    /// done too (<see cref="Workers.ExitBarrier"/>): passes the stop on to an idle worker it may have been meant for.
    /// </summary>
    public virtual void OnStopSeen(int worker)
    {
    }

    /// <summary>Worker thread, once, when it exits.</summary>
    public virtual void OnWorkerExiting(int worker)
    {
    }

    /// <summary>Sets <see cref="IsStopping"/> and wakes every waiting worker; idempotent.</summary>
    public void Stop()
    {
        _stopping = true;
        Interlocked.MemoryBarrier(); // the flag is visible before we read who is waiting (see WakeAll)
        WakeAll();
    }

    /// <summary>Wakes every worker that announced itself idle. Called after <see cref="IsStopping"/> was set.</summary>
    protected abstract void WakeAll();
}
