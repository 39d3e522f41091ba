using SlimPool.Queues;
using SlimPool.Workers;

namespace SlimPool.Scheduling;

/// <summary>
/// The seed design's idle wait: one <see cref="AutoResetEvent"/> shared by all workers and a count of idle
/// workers; a push sets the event only when that count is above zero.
/// </summary>
/// <remarks>
/// The seed blocked right after counting itself idle; we add the re-check of the queue between the two,
/// without which an item queued between the worker's last look and its announcement would wait for the next
/// push (a lost wake-up). The event is sticky, so a Set that lands before the worker blocks is not lost. One
/// Set releases one waiter; a worker that exits on shutdown sets it again for the next (an exit chain).
/// <c>AutoResetEventIdleWait.pml</c> beside this file models it; <c>eng/check-models.sh</c> checks with Spin that
/// no item is stranded, and that without the re-check (the seed as written) one is.
/// <para><b>Chain.</b> Two producers that each see two workers idle both Set the event, but a set event stays set
/// once: the two Sets merge and one worker wakes. If that worker's item then blocks, the second item would wait with
/// a worker asleep. So a worker that the event woke, once it has taken its item, sets the event again if workers are
/// still idle and the queue is not empty (<see cref="OnWorkTaken"/>): a merged Set is passed on, never lost.</para>
/// </remarks>
internal sealed class AutoResetEventIdleWait : IdleWait
{
    // Whether the current worker's last wait ended with the event (not a timeout, not the re-check).
    [ThreadStatic]
    private static bool t_woken;

    private readonly AutoResetEvent _event = new(initialState: false);
    private PaddedInt _idleCount;

    public AutoResetEventIdleWait(IWorkQueue queue)
        : base(queue)
    {
    }

    public override void OnWorkQueued()
    {
        // The producer fenced after publishing its item, so this read pairs with the worker's Increment below.
        if (Volatile.Read(ref _idleCount.Value) > 0)
        {
            _event.Set();
        }
    }

    public override void OnWorkTaken(int worker)
    {
        if (!t_woken)
        {
            return;
        }

        // Chain (see the remarks). Our dequeue was a full fence after our wake; a producer whose Set merged with the
        // one that woke us had published before that Set, so its item is in the queue now or already taken.
        t_woken = false;
        if (Volatile.Read(ref _idleCount.Value) > 0 && !Queue.IsEmpty)
        {
            _event.Set();
        }
    }

    public override bool WaitForWork(int worker, int millisecondsTimeout)
    {
        t_woken = false;
        Interlocked.Increment(ref _idleCount.Value); // announce idle: a full fence
        try
        {
            // Re-check after announcing (see IdleWait): an item published before our announcement is seen here;
            // one published after it makes its producer see _idleCount > 0 and Set the event.
            if (!Queue.IsEmpty || IsStopping)
            {
                return true;
            }

            int keep = CurrentWorker.QueueKeepMillisecondsAtPark(ref millisecondsTimeout);
            if (keep >= 0)
            {
                // The group queues this worker kept (DeferredQueueDrops) stay while it waits a short while, and go once
                // that passes, so an idle pool keeps none; dropping an empty queue queues nothing.
                if (keep > 0 && ThreadInterrupts.WaitOne(_event, keep))
                {
                    return t_woken = true;
                }

                CurrentWorker.DropKeptQueues();
            }

            // A spare that times out may leave a Set behind for nobody in particular: the event stays set and the
            // next worker to wait returns at once. The spare itself looks at the queue once more before it retires
            // (the pool does, after our Decrement below, a full fence), so an item whose Set it missed is not stranded.
            return t_woken = ThreadInterrupts.WaitOne(_event, millisecondsTimeout);
        }
        finally
        {
            Interlocked.Decrement(ref _idleCount.Value);
        }
    }

    // Exit chain: one Set released us; release the next idle worker so it sees IsStopping too. Passed on as soon as the
    // stop is seen, since a drain's workers then wait for each other before they exit (ExitBarrier), and again at the
    // exit (an extra Set at the stop wakes nobody for long).
    public override void OnStopSeen(int worker) => OnWorkerExiting(worker);

    public override void OnWorkerExiting(int worker)
    {
        if (Volatile.Read(ref _idleCount.Value) > 0)
        {
            _event.Set();
        }
    }

    protected override void WakeAll()
    {
        if (Volatile.Read(ref _idleCount.Value) > 0)
        {
            _event.Set();
        }
    }
}
