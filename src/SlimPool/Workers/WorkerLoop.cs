using System.Diagnostics.Tracing;
using SlimPool.Diagnostics;
using SlimPool.Lifecycle;
using SlimPool.Queues;
using SlimPool.Scheduling;

namespace SlimPool.Workers;

/// <summary>
/// What every worker thread of a pool runs: take an item, run it, restore the thread; when the queue is empty, wait
/// (the idle protocol); retire if a spare with nothing to do; exit when the pool stops.
/// </summary>
/// <remarks>
/// The loop owns no shared state of its own: each worker writes only its slot's <see cref="WorkerState"/> and its
/// thread's <see cref="CurrentWorker"/>; the protocols it follows are owned by <see cref="IdleWait"/>,
/// <see cref="WorkerSet"/>, <see cref="IdleTracker"/> and <see cref="ShutdownCoordinator"/>.
/// </remarks>
internal sealed class WorkerLoop
{
    private readonly SlimThreadPool _pool; // whose workers this loop's threads are (CurrentWorker); its name
    private readonly Publisher _publisher; // the priority lanes, once made
    private readonly IWorkQueue _queue;
    private readonly CapacityGate? _gate;
    private readonly IdleWait _idleWait;
    private readonly WorkerSet _workers;
    private readonly WorkItemRunner _runner;
    private readonly ShutdownCoordinator _shutdown;
    private readonly IdleTracker _idle;
    // The context every item starts under: the pool's, or null (SlimThreadPoolOptions.UseSynchronizationContext).
    private readonly SynchronizationContext? _synchronizationContext;
    private readonly int _spareIdleTimeoutMs;
    private readonly ThreadPriority _threadPriority;
    private readonly bool _useBackgroundThreads;
    private readonly Action<int>? _onThreadStart;
    private readonly Action<int>? _onThreadExit;
    private readonly bool _trackThreadClock; // a guard runs and this platform has per-thread clocks
    private readonly WorkItemDurations _durations;
    private readonly SlowItemWatch? _slowItems;

    public WorkerLoop(
        SlimThreadPool pool,
        SlimThreadPoolOptions options,
        Publisher publisher,
        IWorkQueue queue,
        CapacityGate? gate,
        IdleWait idleWait,
        WorkerSet workers,
        WorkItemRunner runner,
        ShutdownCoordinator shutdown,
        IdleTracker idle,
        SynchronizationContext synchronizationContext)
    {
        _pool = pool;
        _publisher = publisher;
        _queue = queue;
        _gate = gate;
        _idleWait = idleWait;
        _workers = workers;
        _runner = runner;
        _shutdown = shutdown;
        _idle = idle;
        _synchronizationContext = options.UseSynchronizationContext ? synchronizationContext : null;
        _spareIdleTimeoutMs = SlimThreadPoolOptions.ToWholeMilliseconds(options.SpareWorkerIdleTimeout);
        _threadPriority = options.ThreadPriority;
        _useBackgroundThreads = options.UseBackgroundThreads;
        _onThreadStart = options.OnThreadStart;
        _onThreadExit = options.OnThreadExit;
        _trackThreadClock = options.StarvationTimeout != Timeout.InfiniteTimeSpan && ThreadCpuClock.IsSupported;
        _durations = pool.Durations;
        _slowItems = pool.SlowItems;
    }

    /// <summary>The SynchronizationContext every item starts under: the pool's, or null.</summary>
    public SynchronizationContext? SynchronizationContext => _synchronizationContext;

    /// <summary>The thread for slot <paramref name="index"/>, not started (<see cref="WorkerSet"/> starts it).</summary>
    public Thread NewThread(int index) => new(Run)
    {
        IsBackground = _useBackgroundThreads,
        Priority = _threadPriority,
        Name = $"{_pool.Name} #{index + 1}",
    };

    private void Run(object? boxedIndex)
    {
        int index = (int)boxedIndex!;
        WorkerState state = _workers.StateOf(index);
        Thread thread = Thread.CurrentThread;
        var blocking = new WorkerBlockingState(_workers);
        state.Blocking = blocking;
        PoolThreadLocals locals = CurrentWorker.Enter(_pool, _workers, blocking, state, new Groups.DeferredQueueDrops());
        var identity = new WorkerThreadIdentity(thread, _threadPriority);
        locals.Identity = identity;
        if (SlimPoolEventSource.Log.IsEnabled())
        {
            SlimPoolEventSource.Log.WorkerStarted(_pool.Name, index, spare: index >= _workers.WorkerCount);
        }

        _runner.InvokeThreadHook(_onThreadStart, index);

        // Code running on the pool that awaits resumes on the pool (see SlimSynchronizationContext), unless the
        // options ask for the built-in pool's null context.
        SynchronizationContext.SetSynchronizationContext(_synchronizationContext);

        // Taken after the start hook, so what the hook set (a culture, an AsyncLocal, a suppressed flow) is every item's
        // baseline: what each item leaves behind, and where an item run nested on this thread starts (CurrentWorker.CleanContextOf).
        var contexts = new ThreadContexts(thread, _synchronizationContext);
        locals.CleanContext = contexts.ExecutionContext;
        int idleTimeout = index >= _workers.WorkerCount ? _spareIdleTimeoutMs : Timeout.Infinite;
        long idleSince = Environment.TickCount64; // a spare's: when it last took an item; it retires idleTimeout after

        // The starvation guard reads this thread's CPU clock by its id (WorkerClocks); until then, the start hook
        // included, the slot reads as starting, and runnable: a hook that blocks is no item the guard should add
        // workers for, as its blocking scopes start no spare (WorkerBlockingState). Written before the first SetBusy,
        // whose exchange publishes it.
        state.OsThreadId = _trackThreadClock ? ThreadCpuClock.CurrentThreadId() : 0;

        _queue.AttachWorker(index);
        var workStealing = _queue as WorkStealingWorkQueue;
        WorkerQueues? ownQueues = workStealing?.CurrentWorkerQueues; // taken without a thread-local read per item
        locals.OwnQueues = ownQueues; // where a group's turn that ends takes the next one (SlimThreadPool.TryTakeNextTurn)
        _idleWait.OnWorkerStarted(index);
        bool busy = false;
        bool retired = false;
        bool lastOut = false;
        int highInARow = 0;    // High items taken straight from their lane since the last look at the queue
        bool fairSkip = false; // whether that look, the last time the lane was passed over, was a fair one
        blocking.InLoop = true;
        try
        {
            while (!_shutdown.IsAbandoning)
            {
                if (!busy)
                {
                    // Busy before the look, with a full fence, so the item is never out of the queue while this
                    // worker reads as idle (IdleTracker reads the queue, then the busy flags).
                    state.SetBusy(true);
                    busy = true;
                    _slowItems?.OnWorkerBusy(); // after the fence above: see SlowItemWatch
                }

                // High items first, straight from their lane (their tickets stay queued, holding their capacity slots);
                // a pool that never had one pays a null test here. But after FairInterval High items in a row the next
                // look passes the lane over, the queue first: a High item that queues its successor, or a High group's turn
                // that queues itself again, keeps the lane full, and the queue's oldest item would wait for it to end
                // (WorkStealingWorkQueue.FairInterval: the same bound a chain in a worker's own ring gets). Once the
                // pool stops, what the lanes hold too (see the stop below).
                PriorityLanes? lanes = _publisher.Lanes;
                QueuedWorkItem item;
                bool taken;
                if (lanes is not null && highInARow < WorkStealingWorkQueue.FairInterval && lanes.TryTakeHigh(out item))
                {
                    highInARow++;
                    taken = true;
                }
                else
                {
                    // With work stealing, such looks alternate: a fair one (the shared queue, siblings' and the batch
                    // first), then an ordinary one (this worker's own slot and ring first, where an item it queued
                    // waits). The fair look alone would always take the High chain's next ticket from the shared
                    // queue and never reach the worker's own queues.
                    if (highInARow == WorkStealingWorkQueue.FairInterval)
                    {
                        fairSkip = !fairSkip;
                        if (fairSkip)
                        {
                            ownQueues?.MakeNextLookFair();
                        }
                    }

                    highInARow = 0;
                    taken = TryDequeue(workStealing, ownQueues, out item)
                        || (lanes is not null && (_idleWait.IsStopping ? lanes.TryTakeLeftover(out item) : lanes.TryTakeHigh(out item)));
                }

                if (taken)
                {
                    _idleWait.OnWorkTaken(index);
                    if (idleTimeout >= 0)
                    {
                        idleSince = Environment.TickCount64;
                    }

                    if (_slowItems is not null)
                    {
                        state.SetRunning(item.StoredCallback, item.StoredState);
                    }

                    long sampledAt = _durations.StartSample();
                    locals.LoopItem = item.StoredCallback; // a group's turn that is this item may run the next (GroupTurns.Execute)
                    _runner.Execute(item, contexts);
                    locals.LoopItem = null; // no reference to an item that ran
                    identity.Restore();
                    blocking.EndOfItem(); // a blocking scope the item left open (disposed on another thread after an await, or never)
                    if (ItemAccounting.TakeIsUserItem(locals))
                    {
                        state.OnItemCompleted(); // progress for the starvation guard and the metrics
                        if (sampledAt != 0)
                        {
                            _durations.Record(sampledAt, group: null);
                        }
                    }

                    if (_slowItems is not null)
                    {
                        state.ClearRunning(); // looking for work from here: not an item the watch may call slow
                    }

                    continue;
                }

                // Idle. An interrupt an item left pending (or aimed at it that came late) is dropped before the idle
                // protocol, whose locks and waits would throw at it (ThreadInterrupts); a busy worker's next item that
                // waits meets it instead, as on the built-in pool.
                ThreadInterrupts.DropPending();

                // The exchange is a full fence before IdleTracker reads its waiter count.
                state.SetBusy(false);
                busy = false;
                _idle.OnWorkerIdle();

                // An item may have made this thread a foreground thread; an idle foreground worker would keep the
                // process alive (read here, not after every item: the read costs a few nanoseconds).
                if (thread.IsBackground != _useBackgroundThreads)
                {
                    thread.IsBackground = _useBackgroundThreads;
                }

                if (_idleWait.IsStopping)
                {
                    // IsStopping was read before this last look, so the look sees every item whose producer saw the
                    // pool still open (see ShutdownCoordinator). An item seen goes round the loop again. The lanes count
                    // as queued: a lane's item can wait there with no ticket queued for it, its ticket having run
                    // another producer's item, one whose own ticket that producer has yet to publish (PriorityLanes);
                    // such an item was accepted, maybe long before the stop, and a drain's workers take it straight
                    // from the lane (the loop's take above), as the shutdown's looks do, rather than leave it to the
                    // thread that finishes the shutdown.
                    if (!_queue.IsEmpty || _publisher.Lanes is { IsEmpty: false })
                    {
                        continue;
                    }

                    // A drain's workers leave together, once none runs an item: one blocked in its item may wait for
                    // an item not queued yet, which the others must run (ExitBarrier). An abandon leaves at once.
                    _idleWait.OnStopSeen(index);
                    if (_workers.Exits.WaitToLeave())
                    {
                        break;
                    }

                    continue;
                }

                // A spare's wait ends when it has taken nothing for its idle timeout, however often it is woken meanwhile
                // (a sibling's slot entries wake it, or keep it watching, and are not its to take).
                int wait = idleTimeout < 0 ? Timeout.Infinite : (int)Math.Clamp(idleTimeout - (Environment.TickCount64 - idleSince), 0, idleTimeout);
                if (!WaitForWork(index, wait))
                {
                    // A spare's wait timed out and it has left the idle state with a full fence. Look once more: an
                    // item published while it was leaving may have been meant for it (its producer saw it idle, and
                    // the wake found nobody); a slot's entry is its owner's. Then leave only if no blocked worker still
                    // needs it covered.
                    if (_idleWait.IsEmptyForALeavingSpare && _workers.TryRetire(out lastOut))
                    {
                        retired = true;
                        break;
                    }

                    // Refused (a blocked worker still needs it), or an item arrived: it waits a whole idle timeout again
                    // before it asks next, rather than at once (its wait, measured from idleSince, would be zero: a spin
                    // for as long as the worker it covers stays blocked).
                    idleSince = Environment.TickCount64;
                }
            }
        }
        finally
        {
            ThreadInterrupts.DropPending(); // the way out takes locks: one an interrupt landed on since the idle drop
            blocking.InLoop = false; // a scope the exit hook opens is no item's: no spare during a shutdown for it
            if (retired)
            {
                blocking.OnRetired(); // nor, once a spare has left the live count, any spare for it at all
            }

            state.ClearBusy();
            CurrentWorker.DropKeptQueues(); // the group queues it kept go with it
            _runner.InvokeThreadHook(_onThreadExit, index);
            if (SlimPoolEventSource.Log.IsEnabled())
            {
                SlimPoolEventSource.Log.WorkerStopped(_pool.Name, index, retired);
            }

            _queue.DetachWorker(index);
            _idleWait.OnWorkerExiting(index);
            CurrentWorker.Leave();
            if (retired)
            {
                _workers.Release(index); // the slot takes the next spare; a worker exiting on shutdown keeps it (Join)
            }

            if (retired ? lastOut : _workers.OnExited())
            {
                _shutdown.OnWorkersExited();
            }
        }
    }

    // The idle wait, between two trace events when a session listens for them (verbose, Idle keyword).
    private bool WaitForWork(int index, int idleTimeout)
    {
        if (!SlimPoolEventSource.Log.IsEnabled(EventLevel.Verbose, SlimPoolEventSource.Keywords.Idle))
        {
            return _idleWait.WaitForWork(index, idleTimeout);
        }

        SlimPoolEventSource.Log.WorkerIdleWaitStart(_pool.Name, index);
        bool woken = _idleWait.WaitForWork(index, idleTimeout);
        SlimPoolEventSource.Log.WorkerIdleWaitStop(_pool.Name, index, woken);
        return woken;
    }

    private bool TryDequeue(WorkStealingWorkQueue? workStealing, WorkerQueues? ownQueues, out QueuedWorkItem item)
    {
        if (workStealing is not null ? workStealing.TryDequeue(ownQueues, out item) : ThreadInterrupts.TryDequeue(_queue, out item))
        {
            _gate?.Release(); // the item's capacity slot
            return true;
        }

        return false;
    }
}
