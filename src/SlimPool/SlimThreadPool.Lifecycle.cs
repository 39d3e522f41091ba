using SlimPool.Queues;

namespace SlimPool;

/// <summary>Shutdown (drain or abandon), disposal, and waiting for the pool to go idle.</summary>
public sealed partial class SlimThreadPool
{
    private readonly Lock _finishLock = new();
    private readonly Lock _shutdownLock = new();
    // Set once under _finishLock by FinishShutdown, when the workers have exited; later callers return it.
    private ShutdownResult? _shutdownResult;
    // Set once under _finishLock when a cancelled ShutdownAsync returned before the workers had exited; FinishShutdown
    // then returns this same result.
    private ShutdownResult? _earlyResult;
    // The pool-wide completion every ShutdownAsync returns; set once by BeginShutdown.
    private Task<ShutdownResult>? _shutdownTask;
    // 1 once FinishShutdown has begun its last look at the queue: see OnQueuedDuringShutdown.
    private int _finished;

    /// <summary>
    /// Stops accepting work and shuts the pool down. <see cref="ShutdownMode.Drain"/> runs every accepted item;
    /// <see cref="ShutdownMode.Abandon"/> lets the items already started finish and hands the others back.
    /// Either way, every accepted item is run or handed back, never lost, and afterwards queueing fails as
    /// after <see cref="Dispose"/>.
    /// </summary>
    /// <param name="mode">Whether to drain or abandon the queued items.</param>
    /// <param name="cancellationToken">
    /// Turns a drain into an abandon when cancelled (a host's shutdown timeout, for example); a token already
    /// cancelled abandons at once. Once cancelled, the returned task completes without waiting for the items still
    /// running (<see cref="ShutdownResult.RunningWorkItemCount"/> counts them; they finish on their workers, which
    /// then exit). It never makes the task end cancelled: the items handed back are in its result.
    /// </param>
    /// <returns>
    /// A task that completes when the workers have exited, with the items not run. Every call returns the same
    /// outcome: a later <see cref="ShutdownMode.Abandon"/> (or cancelled token) can still turn a drain in
    /// progress into an abandon. Do not block on it from one of this pool's workers.
    /// </returns>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="mode"/> is not a defined <see cref="ShutdownMode"/>.</exception>
    public Task<ShutdownResult> ShutdownAsync(ShutdownMode mode, CancellationToken cancellationToken = default)
    {
        if (mode is not (ShutdownMode.Drain or ShutdownMode.Abandon))
        {
            throw new ArgumentOutOfRangeException(nameof(mode), mode, $"{nameof(mode)} must be {nameof(ShutdownMode.Drain)} or {nameof(ShutdownMode.Abandon)}.");
        }

        if (mode == ShutdownMode.Abandon || cancellationToken.IsCancellationRequested)
        {
            Volatile.Write(ref _abandon, 1);
        }

        Task<ShutdownResult> shutdown = BeginShutdown();
        return cancellationToken.CanBeCanceled && !shutdown.IsCompleted
            ? AbandonOnCancellationAsync(shutdown, cancellationToken)
            : shutdown;
    }

    /// <summary>
    /// Stops accepting work, runs every accepted item, and waits for the workers to exit (a drain). Idempotent. On
    /// one of this pool's workers it runs the remaining items on that worker and returns without waiting for it.
    /// </summary>
    public void Dispose()
    {
        BeginShutdown();
        if (IsOwnWorker)
        {
            RunUntilEmpty(stopOnAbandon: true);
            return;
        }

        // Synchronously on this thread, not through the shutdown task: disposal must not depend on the
        // built-in pool having a thread free to run a continuation.
        _stopped.Task.Wait();
        FinishShutdown();
    }

    /// <summary>Like <see cref="Dispose"/> (a drain), but waits for the workers asynchronously.</summary>
    /// <returns>A task that completes when every accepted item has run and the workers have exited.</returns>
    public async ValueTask DisposeAsync()
    {
        Task<ShutdownResult> shutdown = BeginShutdown();
        if (IsOwnWorker)
        {
            RunUntilEmpty(stopOnAbandon: true);
            return;
        }

        await shutdown.ConfigureAwait(false);
    }

    /// <summary>
    /// Completes when nothing is queued and no worker is running an item (at a moment when that held), or once
    /// the pool has shut down. A pool that is idle now gives a completed task.
    /// </summary>
    /// <param name="cancellationToken">Stops waiting: the task then ends cancelled.</param>
    /// <returns>A task that completes when the pool is idle.</returns>
    /// <remarks>Items queued after the moment observed are not waited for. Called from one of this pool's own
    /// items it cannot complete before that item returns, so do not block on it there.</remarks>
    public Task WaitForIdleAsync(CancellationToken cancellationToken = default)
    {
        if (cancellationToken.IsCancellationRequested)
        {
            return Task.FromCanceled(cancellationToken);
        }

        if (IsIdleNow())
        {
            return Task.CompletedTask;
        }

        var waiter = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        lock (_idleLock)
        {
            _idleWaiters.Add(waiter);
            Interlocked.Increment(ref _idleWaiterCount); // full fence before our own look: see CheckIdle
        }

        CheckIdle();
        if (cancellationToken.CanBeCanceled && !waiter.Task.IsCompleted)
        {
            return WaitForIdleCancellableAsync(waiter, cancellationToken);
        }

        return waiter.Task;
    }

    private async Task<ShutdownResult> AbandonOnCancellationAsync(Task<ShutdownResult> shutdown, CancellationToken cancellationToken)
    {
        // Workers read _abandon before each item, so setting it is all an abandon needs once shutdown began; the
        // caller then gets the queue's items back at once instead of waiting for the running items, which may block.
        var cancelled = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        await using (cancellationToken.UnsafeRegister(
            static s =>
            {
                var (pool, signal) = ((SlimThreadPool, TaskCompletionSource))s!;
                Volatile.Write(ref pool._abandon, 1);
                signal.TrySetResult();
            },
            (this, cancelled)).ConfigureAwait(false))
        {
            if (await Task.WhenAny(shutdown, cancelled.Task).ConfigureAwait(false) == shutdown)
            {
                return await shutdown.ConfigureAwait(false);
            }
        }

        return AbandonBeforeWorkersStop();
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
            _earlyResult = new ShutdownResult(ShutdownMode.Abandon, abandoned, runningWorkItemCount: BusyWorkerCount);
            return _earlyResult;
        }
    }

    private Task<ShutdownResult> BeginShutdown()
    {
        // The Exchange is a full fence: a producer that then reads _shutdown == 0 after publishing its item
        // published it before this point, so the workers' final look at the queue (made after they see
        // IsStopping, which Stop sets after this) finds it.
        lock (_shutdownLock)
        {
            if (Interlocked.Exchange(ref _shutdown, 1) != 0)
            {
                return _shutdownTask!;
            }

            _shutdownTask = FinishWhenStoppedAsync();
        }

        // No spare starts from here on: every worker that will ever run is counted live before the workers are told to
        // stop, so the live count cannot reach zero (and Dispose's wait end) while a spare is still to come.
        _workerSet.Close();
        _idleWait.Stop();
        _guard?.Stop();
        _gate?.Close();
        return _shutdownTask;
    }

    private async Task<ShutdownResult> FinishWhenStoppedAsync()
    {
        await _stopped.Task.ConfigureAwait(false);
        return FinishShutdown();
    }

    // Runs once every worker has exited (whoever gets here first does the work; the rest get its result). With
    // no worker left, the queue holds only items that no one else will take: run them (drain) or hand them
    // back (abandon).
    private ShutdownResult FinishShutdown()
    {
        ShutdownResult done;
        lock (_finishLock)
        {
            if (_shutdownResult is { } finished)
            {
                return finished;
            }

            _workerSet.Join();
            _guard?.Join();
            if (_earlyResult is { } early)
            {
                // Its items were handed back before the workers stopped; what was queued since is run (see
                // AbandonBeforeWorkersStop), after _finished is set, so a later late producer runs its own.
                Volatile.Write(ref _finished, 1);
                Interlocked.MemoryBarrier();
                RunUntilEmpty(stopOnAbandon: false);
                _meter.Dispose();
                Volatile.Write(ref _shutdownResult, early);
                done = early;
                goto Completed;
            }

            var abandoned = new List<AbandonedWorkItem>();

            // Two looks with _finished set between them, a full fence after it: a producer that published an
            // item and then read _finished == 0 left the item to us (OnQueuedDuringShutdown), and its publish
            // precedes our second look; one that read 1 runs its own leftovers. The first look of a drain is
            // this run, which stops if an abandon overtakes it; then the abandon's first look takes the rest.
            bool abandon = Volatile.Read(ref _abandon) != 0;
            if (!abandon)
            {
                RunUntilEmpty(stopOnAbandon: true);
                abandon = Volatile.Read(ref _abandon) != 0;
            }

            if (abandon)
            {
                TakeLeftovers(abandon: true, abandoned);
            }

            Volatile.Write(ref _finished, 1);
            Interlocked.MemoryBarrier();
            TakeLeftovers(abandon, abandoned);

            _meter.Dispose();
            done = new ShutdownResult(abandon ? ShutdownMode.Abandon : ShutdownMode.Drain, abandoned, runningWorkItemCount: 0);
            Volatile.Write(ref _shutdownResult, done);
        }

    Completed:
        CompleteIdleWaiters();
        return done;
    }

    private void TakeLeftovers(bool abandon, List<AbandonedWorkItem> abandoned)
    {
        if (!abandon)
        {
            RunUntilEmpty(stopOnAbandon: false);
            return;
        }

        while (_queue.TryDequeue(out QueuedWorkItem item))
        {
            if (item.UserCallback is IAbandonable abandonable)
            {
                abandonable.Abandon(); // the pool's own waiting callers (Send) learn of it at once, with an exception
                continue;
            }

            abandoned.Add(new AbandonedWorkItem(item));
        }
    }

    // Our item was accepted (we saw the pool open) but shutdown began before we could wake anyone. A producer never
    // runs other people's items: while FinishShutdown has not begun its last look (_finished == 0), that look, or a
    // worker still draining, takes our item (runs it in a drain, hands it back in an abandon), and so does a worker of
    // this pool's own. Only once the last look is over can an item be left with nobody to take it; then this thread
    // runs one item, the one it left (several producers racing that instant may swap theirs: each runs one).
    private void OnQueuedDuringShutdown()
    {
        if (IsOwnWorker || Volatile.Read(ref _finished) == 0)
        {
            return;
        }

        if (_queue.TryDequeue(out QueuedWorkItem item))
        {
            Execute(item, ExecutionContext.Capture(), SynchronizationContext.Current);
        }
    }

    // Runs whatever is queued on the calling thread (shutdown paths only), restoring the caller's ambient
    // contexts after each item.
    private void RunUntilEmpty(bool stopOnAbandon)
    {
        ExecutionContext? callerContext = ExecutionContext.Capture();
        SynchronizationContext? callerSyncContext = SynchronizationContext.Current;
        while (!(stopOnAbandon && Volatile.Read(ref _abandon) != 0) && _queue.TryDequeue(out QueuedWorkItem item))
        {
            Execute(item, callerContext, callerSyncContext);
        }
    }
}
