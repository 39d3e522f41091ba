using SlimPool.Queues;

namespace SlimPool.Scheduling;

/// <summary>
/// How a pool's workers wait for work, and how producers wake them. The protocol every implementation
/// follows to never lose a wake-up (a queued item while every worker sleeps):
/// </summary>
/// <remarks>
/// <para><b>Producer</b> (<see cref="SlimThreadPool"/>): publish the item in the queue, execute a full fence,
/// then call <see cref="OnWorkQueued"/>, which reads the idle state.</para>
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

    /// <summary>Worker thread, once, before its first look at the queue.</summary>
    public virtual void OnWorkerStarted(int worker)
    {
    }

    /// <summary>Producer, after publishing an item and a full fence.</summary>
    public abstract void OnWorkQueued();

    /// <summary>Worker thread, after it took an item from the queue.</summary>
    public virtual void OnWorkTaken(int worker)
    {
    }

    /// <summary>
    /// Worker thread, after the queue was seen empty: returns when the worker should look again (work may
    /// have arrived, or <see cref="IsStopping"/> is set). May return spuriously.
    /// </summary>
    public abstract void WaitForWork(int worker);

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
