using SlimPool.Async;
using SlimPool.Groups;
using SlimPool.Queues;
using SlimPool.Scheduling;
using SlimPool.Workers;

namespace SlimPool.Lifecycle;

/// <summary>
/// A pool's shutdown: when it stops accepting, whether it drains or abandons, who runs or hands back what is left
/// once the workers have exited, and what a producer does whose item lands as the shutdown begins.
/// </summary>
/// <remarks>
/// <para><b>Fields.</b> <c>_shutdown</c> (0 while accepting) and <c>_abandon</c> (workers stop taking items) are
/// written once each and read on every publish and before every item. <c>_finished</c> is set by
/// <see cref="FinishShutdown"/> before its last look at the queue. The results and the shutdown task are written under
/// <c>_finishLock</c>; the shutdown task is the one every caller gets, completed once the finish has run.</para>
/// <para><b>Producers.</b> A producer reads <c>_shutdown</c> before it publishes and again after its publish and full
/// fence (<see cref="OnQueuedDuringShutdown"/>). <see cref="Begin"/>'s exchange is a full fence too: a producer that
/// read 0 the second time published before it, so the workers' last look (made after they see the idle wait stop,
/// which Begin sets after the exchange) finds the item.</para>
/// </remarks>
internal sealed class ShutdownCoordinator
{
    private readonly IWorkQueue _queue;
    private readonly WorkItemRunner _runner;
    private readonly WorkerSet _workers;
    private readonly IdleWait _idleWait;
    private readonly StarvationGuard? _guard;
    private readonly CapacityGate? _gate;
    private readonly Action _onFinished;
    private readonly SynchronizationContext? _workersContext; // what the pool's workers run their items under: the pool's, or none
    private readonly LongRunningTasks _longRunning;           // the scheduler's tasks on threads of their own: waited for like running items
    private readonly Action<List<AbandonedWorkItem>> _handBackGroups;
    private readonly Func<PriorityLanes?> _lanes;

    [ThreadStatic]
    private static ShutdownCoordinator? t_runningLeftovers; // the coordinator whose leftover item this thread runs now
    [ThreadStatic]
    private static int t_publishedMeanwhile;               // items this thread published while running one of them

    private readonly TaskCompletionSource _stopped = new(TaskCreationOptions.RunContinuationsAsynchronously);
    private readonly Lock _finishLock = new();
    private int _shutdown;
    private int _abandon;
    private CancellationTokenSource? _abandoned;  // made by the first AbandonToken read; cancelled once _abandon is set
    private int _runningHere; // threads in RunUntilEmpty (a worker's Dispose, the finish): see IsRunningItems
    private int _finished;
    private readonly TaskCompletionSource<ShutdownResult> _finishedResult = new(); // every ShutdownAsync returns its task
    private ShutdownResult? _shutdownResult;      // under _finishLock, once the workers have exited
    private ShutdownResult? _earlyResult;         // under _finishLock, when a cancelled shutdown returned before that
    private long _completedHere;                  // user items this coordinator ran (see Run)

    /// <summary>
    /// The coordinator of one pool; <paramref name="onFinished"/> is called once, after the final result is set;
    /// <paramref name="handBackGroups"/> hands back what the pool's groups hold queued, in an abandon; <paramref name="lanes"/>
    /// reads the pool's priority lanes (null until the first High or Low item).
    /// </summary>
    public ShutdownCoordinator(IWorkQueue queue, WorkItemRunner runner, WorkerSet workers, IdleWait idleWait, StarvationGuard? guard, CapacityGate? gate, Action onFinished, Action<List<AbandonedWorkItem>> handBackGroups, Func<PriorityLanes?> lanes, SynchronizationContext? workersContext, LongRunningTasks longRunning)
    {
        _workersContext = workersContext;
        _longRunning = longRunning;
        _handBackGroups = handBackGroups;
        _lanes = lanes;
        _queue = queue;
        _runner = runner;
        _workers = workers;
        _idleWait = idleWait;
        _guard = guard;
        _gate = gate;
        _onFinished = onFinished;
    }

    /// <summary>Whether the pool has stopped accepting work.</summary>
    public bool IsShutDown => Volatile.Read(ref _shutdown) != 0;

    /// <summary>Whether workers must stop taking items (an abandon was asked for).</summary>
    public bool IsAbandoning => Volatile.Read(ref _abandon) != 0;

    /// <summary>
    /// A token cancelled once an abandon has begun (<see cref="IsAbandoning"/>), for a thread that waits for one of the
    /// pool's items and must stop waiting when the item will not run (a Send's caller). The source is made by the first
    /// read: its install (a compare-and-swap, a full fence) comes before this read's look at <c>_abandon</c>, and
    /// <see cref="MarkAbandoning"/> writes <c>_abandon</c> with a full fence before its read of the source, so one of the
    /// two cancels it.
    /// </summary>
    public CancellationToken AbandonToken
    {
        get
        {
            CancellationTokenSource? source = Volatile.Read(ref _abandoned);
            if (source is null)
            {
                var fresh = new CancellationTokenSource();
                source = Interlocked.CompareExchange(ref _abandoned, fresh, null) ?? fresh;
                if (source != fresh)
                {
                    fresh.Dispose();
                }

                if (IsAbandoning)
                {
                    source.Cancel();
                }
            }

            return source.Token;
        }
    }

    /// <summary>
    /// Whether the last look at the queue has begun (<see cref="FinishShutdown"/>): from then on nothing more is handed
    /// back, and what is queued is run.
    /// </summary>
    public bool IsPastLastLook => Volatile.Read(ref _finished) != 0;

    /// <summary>
    /// Whether this thread is running one of the shutdown's leftover items (the thread that finishes the shutdown, or a
    /// late producer running its own): what that item posts to the pool's or its group's context or scheduler meanwhile
    /// (an <c>await Task.Yield()</c>, a continuation of a task it completes) is accepted and run by the same thread, in
    /// its leftover loop, instead of running on the built-in pool after the shutdown returned.
    /// </summary>
    public bool IsRunningLeftoversOnCurrentThread => t_runningLeftovers == this;

    /// <summary>
    /// Whether a thread is running what is queued for this shutdown (the finish, or a worker's Dispose): counted before it
    /// takes an item, so an item it took is in the queue or counted here. Late producers' items, which run only after the
    /// finish, are not counted.
    /// </summary>
    public bool IsRunningItems => Volatile.Read(ref _runningHere) != 0;

    /// <summary>The final result, once the shutdown has finished (set before the finish callback runs).</summary>
    public ShutdownResult? FinalResult => Volatile.Read(ref _shutdownResult);

    /// <summary>Whether the shutdown has finished: the workers exited and the leftovers were run or handed back.</summary>
    public bool IsFinished => Volatile.Read(ref _shutdownResult) is not null;

    /// <summary>The user items the shutdown ran itself, on the thread that finished it or on a late producer's.</summary>
    public long CompletedCount => Interlocked.Read(ref _completedHere);

    /// <summary>The last worker has exited.</summary>
    public void OnWorkersExited()
    {
        using ThreadInterrupts.PendingScope heldOff = ThreadInterrupts.HoldOffPending(); // Dispose blocks on the task
        _stopped.TrySetResult();
    }

    public Task<ShutdownResult> ShutdownAsync(ShutdownMode mode, CancellationToken cancellationToken)
    {
        if (mode == ShutdownMode.Abandon || cancellationToken.IsCancellationRequested)
        {
            MarkAbandoning();
        }

        Task<ShutdownResult> shutdown = Begin();
        return cancellationToken.CanBeCanceled && !shutdown.IsCompleted
            ? AbandonOnCancellationAsync(shutdown, cancellationToken)
            : shutdown;
    }

    /// <summary>
    /// A drain that waits on the calling thread; on one of the pool's own workers it runs what is left instead. Inside an
    /// item this shutdown runs itself (a worker's Dispose, the finishing thread, a late producer: see
    /// <see cref="Run"/>) it only begins the shutdown: the loop running that item runs the rest, so no item runs inside
    /// another, however many of them dispose the pool.
    /// </summary>
    public void Dispose(bool onOwnWorker)
    {
        Begin();
        if (t_runningLeftovers == this || _longRunning.IsRunningOnCurrentThread)
        {
            return; // the loop running this thread's item runs the rest, or (a long-running task) the finish waits for it
        }

        if (onOwnWorker)
        {
            RunUntilEmpty(stopOnAbandon: true);
            return;
        }

        // Synchronously on this thread, not through the shutdown task: disposal must not depend on the built-in pool
        // having a thread free to run a continuation.
        _stopped.Task.Wait();
        FinishShutdown();
    }

    /// <summary>As <see cref="Dispose"/>, waiting asynchronously off the pool's threads.</summary>
    public async ValueTask DisposeAsync(bool onOwnWorker)
    {
        Task<ShutdownResult> shutdown = Begin();
        if (t_runningLeftovers == this || _longRunning.IsRunningOnCurrentThread)
        {
            return;
        }

        if (onOwnWorker)
        {
            RunUntilEmpty(stopOnAbandon: true);
            return;
        }

        await shutdown.ConfigureAwait(false);
    }

    /// <summary>
    /// A producer published an item after the pool was open, then saw it shutting down. A producer never runs other
    /// people's items: while <see cref="FinishShutdown"/> has not begun its last look (<c>_finished == 0</c>), that
    /// look, or a worker still draining, takes the item (runs it in a drain, hands it back in an abandon), and so does
    /// a worker of this pool's own. Only once the last look is over can an item be left with nobody to take it; then
    /// this thread runs as many items as it left, from the queue or a lane (several producers racing that instant may swap
    /// theirs: each runs as many as it left; a High item a ticket outstanding covered is one it left).
    /// </summary>
    public void OnQueuedDuringShutdown(bool onOwnWorker, int count = 1)
    {
        _workers.Exits.OnQueued(); // a drain's workers waiting to leave take it
        _guard?.OnQueued();        // and the guard watches it, in case every worker is stuck in an item
        if (t_runningLeftovers == this)
        {
            // Posted by the leftover item this thread runs: the loop that runs it takes this one too.
            t_publishedMeanwhile += count;
            return;
        }

        if (onOwnWorker || Volatile.Read(ref _finished) == 0)
        {
            return;
        }

        // One item for each this thread left (a batch leaves several), and one more for each item those posted while
        // they ran: a producer runs as many items as it left, no more.
        for (int owed = count; owed > 0 && TryTakeLeftover(out QueuedWorkItem item); owed--)
        {
            t_publishedMeanwhile = 0;
            Run(item);
            owed += t_publishedMeanwhile;
        }
    }

    private Task<ShutdownResult> Begin()
    {
        if (Interlocked.Exchange(ref _shutdown, 1) != 0)
        {
            return _finishedResult.Task;
        }

        // From here on a spare starts only for a drain's items: a blocked item's (WorkerSet.OnBlocked, counted live by a
        // live worker) or the starvation guard's, which keeps watching through a drain, until its workers leave
        // (ExitBarrier) or an abandon begins (both marked under WorkerSet's lock, before any worker can leave): so the
        // live count cannot reach zero (and Dispose's wait end) while a spare is still to come. An abandon stops the
        // guard (MarkAbandoning); the finish stops it in any case before it joins it.
        _workers.Close();
        _idleWait.Stop();
        _gate?.Close();

        // Only now, outside the lock: the workers may have exited already (an abandon's flag is set before Begin, and a
        // worker that sees it exits), and then the finish runs on this thread at once; it runs items, which may call
        // ShutdownAsync again and must find the task set.
        _ = FinishWhenStoppedAsync();
        return _finishedResult.Task;
    }

    // Workers stop taking items; then the waiters on AbandonToken are told (see there).
    private void MarkAbandoning()
    {
        _workers.Abandon(); // first: no spare starts once a worker may see _abandon and leave
        Interlocked.Exchange(ref _abandon, 1);
        _guard?.Stop();
        Volatile.Read(ref _abandoned)?.Cancel();
    }

    private async Task<ShutdownResult> AbandonOnCancellationAsync(Task<ShutdownResult> shutdown, CancellationToken cancellationToken)
    {
        // Workers read _abandon before each item, so setting it is all an abandon needs once shutdown began; the
        // caller then gets the queue's items back at once instead of waiting for the running items, which may block.
        var cancelled = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        await using (cancellationToken.UnsafeRegister(
            static s =>
            {
                var (coordinator, signal) = ((ShutdownCoordinator, TaskCompletionSource))s!;
                coordinator.MarkAbandoning();
                signal.TrySetResult();
            },
            (this, cancelled)).ConfigureAwait(false))
        {
            if (await Task.WhenAny(shutdown, cancelled.Task).ConfigureAwait(false) == shutdown)
            {
                return await shutdown.ConfigureAwait(false);
            }
        }

        // Inside an item the finish runs on this thread, under its lock, the finish sees the flag and hands the rest back
        // in the one result every call returns; an early result made here would hand back items that result does not
        // list. Anywhere else (a worker's Dispose loop included) the early result is that one result.
        return _finishLock.IsHeldByCurrentThread ? await shutdown.ConfigureAwait(false) : AbandonBeforeWorkersStop();
    }

    // A cancelled shutdown whose workers are still running items: hand back what is queued now. Workers still check
    // _abandon before each dequeue, and the queue gives each item to one taker: an item is either run by a worker
    // that looked just before the abandon, or handed back here. What is queued after this (an item racing the
    // shutdown flag) is run by FinishShutdown once the workers exit: there is no result left to hand it back in.
    private ShutdownResult AbandonBeforeWorkersStop()
    {
        lock (_finishLock)
        {
            if ((_shutdownResult ?? _earlyResult) is { } result)
            {
                return result;
            }

            var abandoned = new List<AbandonedWorkItem>();
            TakeLeftovers(abandon: true, abandoned);
            // Running: the workers' items, and the long-running tasks (accepted before the shutdown, each on a thread of
            // its own, started or about to start its delegate: neither can be handed back).
            _earlyResult = new ShutdownResult(ShutdownMode.Abandon, abandoned, runningWorkItemCount: _workers.BusyCount() + _longRunning.Count);
            return _earlyResult;
        }
    }

    private async Task FinishWhenStoppedAsync()
    {
        try
        {
            await _stopped.Task.ConfigureAwait(false);

            // The workers may have exited already, and then this runs on the caller's thread. On a long-running task of the
            // pool's the finish would wait there for the other long-running tasks (FinishShutdown), which may be waiting
            // for this one: it runs on the built-in pool instead, where it waits for all of them.
            ShutdownResult result = _longRunning.IsRunningOnCurrentThread
                ? await Task.Run(FinishShutdown).ConfigureAwait(false)
                : FinishShutdown();

            // The finish may have run leftovers here, one of which left an interrupt pending; a caller may block on the task.
            using ThreadInterrupts.PendingScope heldOff = ThreadInterrupts.HoldOffPending();
            _finishedResult.TrySetResult(result);
        }
        catch (Exception e)
        {
            _finishedResult.TrySetException(e);
        }
    }

    // Runs once every worker has exited (whoever gets here first does the work; the rest get its result). With no
    // worker left, the queue holds only items that no one else will take: run them (drain) or hand them back (abandon).
    private ShutdownResult FinishShutdown()
    {
        // Its waits (the long-running tasks, the lock, the joins) are the pool's, and its result every caller's: an interrupt
        // pending on the thread that runs it (Dispose's caller, or a built-in pool thread an item of anyone's left one on)
        // is held off until it is done, or it would fault the one shutdown task that every ShutdownAsync returns.
        using ThreadInterrupts.PendingScope heldOff = ThreadInterrupts.HoldOffPending();

        // The scheduler's long-running tasks are the pool's running items too, on threads of their own: none is accepted
        // once the shutdown has begun, so this waits for a known set (LongRunningTasks' remarks), as the join below waits
        // for the workers' items; before the lock, so that one of them may call the shutdown meanwhile (a cancelled one
        // returns its early result under it). Never on one of them: Dispose there does not finish, and the shutdown task's
        // finish moves off it (FinishWhenStoppedAsync).
        _longRunning.WaitForAll();
        ShutdownResult done;
        lock (_finishLock)
        {
            if (_shutdownResult is { } finished)
            {
                return finished;
            }

            _workers.Join();
            _guard?.Stop();
            _guard?.Join();
            if (_earlyResult is { } early)
            {
                // Its items were handed back before the workers stopped; what was queued since is run here (see
                // AbandonBeforeWorkersStop), after _finished is set, so a later late producer runs its own.
                Volatile.Write(ref _finished, 1);
                Interlocked.MemoryBarrier();
                RunUntilEmpty(stopOnAbandon: false);
                done = early;
            }
            else
            {
                // Two looks with _finished set between them, a full fence after it: a producer that published an item
                // and then read _finished == 0 left the item to us (OnQueuedDuringShutdown), and its publish precedes
                // our second look; one that read 1 runs its own. The first look of a drain is this run, which stops if
                // an abandon overtakes it; then the abandon's first look takes the rest.
                var abandoned = new List<AbandonedWorkItem>();
                bool abandon = IsAbandoning;
                if (!abandon)
                {
                    RunUntilEmpty(stopOnAbandon: true);
                    abandon = IsAbandoning;
                }

                if (abandon)
                {
                    TakeLeftovers(abandon: true, abandoned);
                }

                Volatile.Write(ref _finished, 1);
                Interlocked.MemoryBarrier();
                TakeLeftovers(abandon, abandoned);
                done = new ShutdownResult(abandon ? ShutdownMode.Abandon : ShutdownMode.Drain, abandoned, runningWorkItemCount: 0);
            }

            // The leftovers ran on this thread, and one may have left it interrupted: the finish's own steps (the slow-item
            // watch's join, the meter, the idle waiters) must not throw at it half-way. It is given back after them, for
            // the thread's next wait, as after an item anywhere.
            using (ThreadInterrupts.HoldOffPending())
            {
                Volatile.Write(ref _shutdownResult, done);

                // Inside the lock: Dispose and the shutdown task's continuation both come here, and the one that loses the
                // lock returns the result above only once the winner has also disposed the meter and released the idle
                // waiters, so Dispose never returns before them. A re-entrant call from _onFinished (a meter listener that
                // disposes the pool) finds the result set and returns at once.
                _onFinished();
            }
        }

        return done;
    }

    private void TakeLeftovers(bool abandon, List<AbandonedWorkItem> abandoned)
    {
        if (!abandon)
        {
            RunUntilEmpty(stopOnAbandon: false);
            return;
        }

        while (TryTakeLeftover(out QueuedWorkItem item))
        {
            HandBack(item, abandoned);
        }

        // A group whose turn is running now (not in the queue) still holds its backlog: that comes back too. The turn
        // stops at its next item (SlimThreadPool.IsHandingBack) and queues itself again; what it finds then is only
        // what producers that raced the shutdown flag added.
        _handBackGroups(abandoned);
    }

    /// <summary>
    /// Hands back an item that will not run: a group's turn hands back the group's items, a waiting caller of the pool's
    /// own (Send) learns of it at once with an exception, any other item goes into <paramref name="abandoned"/>.
    /// </summary>
    public static void HandBack(in QueuedWorkItem item, List<AbandonedWorkItem> abandoned)
    {
        switch (item.UserCallback)
        {
            case IHandsBackItems source:
                source.HandBack(abandoned);
                break;
            case IAbandonable abandonable:
                abandonable.Abandon();
                break;
            default:
                abandoned.Add(new AbandonedWorkItem(item));
                break;
        }
    }

    // Runs whatever is queued on the calling thread (shutdown paths only). Counted from before its first look until after
    // its last item, as a busy worker is (IdleTracker reads the count before and after its look at the queue): an item
    // taken here is in the queue or counted, so no waiter sees the pool idle while it runs.
    private void RunUntilEmpty(bool stopOnAbandon)
    {
        Interlocked.Increment(ref _runningHere);
        try
        {
            while (!(stopOnAbandon && IsAbandoning) && TryTakeLeftover(out QueuedWorkItem item))
            {
                Run(item);
            }
        }
        finally
        {
            Interlocked.Decrement(ref _runningHere);
        }
    }

    // The queue first, then what the priority lanes still hold. A lane's tickets run or hand back the lane's oldest item,
    // not the one each was queued for: the tickets queued before the shutdown can take the item of a producer racing it
    // (counted, its ticket not yet published), leaving in the lane an item accepted before the shutdown, which only that
    // producer's late ticket would take, after the shutdown returned. So every look empties the lanes as well; the
    // racing producer's ticket then finds nothing, or its own item if it enqueued after the look (PriorityLanes).
    private bool TryTakeLeftover(out QueuedWorkItem item) =>
        ThreadInterrupts.TryDequeue(_queue, out item) || (_lanes() is { } lanes && lanes.TryTakeLeftover(out item));

    // An item run here, off the worker loop, counted as the workers count theirs (ItemAccounting), and run as a worker
    // runs it (WorkItemRunner.ExecuteNested): in the context it flowed, or in a clean one (the caller's AsyncLocal values
    // are not the item's producer's; a group's turn takes the same context as its baseline). On one of the pool's own
    // workers (its Dispose, called from an item) it is an item run inside that item: the slow-item watch times it on its
    // own and names it as itself, then the outer item again (WorkerState.EnterNested), as for an item run inline.
    private void Run(in QueuedWorkItem item)
    {
        ShutdownCoordinator? outer = t_runningLeftovers;
        t_runningLeftovers = this;
        WorkerState? worker = CurrentWorker.StateOf(_workers);
        var outerItem = worker?.EnterNested(item.StoredCallback, item.StoredState) ?? default;
        try
        {
            _runner.ExecuteNested(item, item.Context ?? CurrentWorker.CleanContextOf(_workers) ?? ThreadContexts.Clean, _workersContext);
        }
        finally
        {
            worker?.RestoreRunning(outerItem);
            t_runningLeftovers = outer;
        }

        if (ItemAccounting.TakeIsUserItem())
        {
            Interlocked.Increment(ref _completedHere);
        }
    }
}
