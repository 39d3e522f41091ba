using SlimPool.Groups;

namespace SlimPool;

/// <summary>Shutdown of the group alone: drain or abandon its items, the pool and its other groups untouched.</summary>
public sealed partial class SlimThreadPoolGroup
{
    private static readonly Task<ShutdownResult> s_drainedWithNothingPending = Task.FromResult(new ShutdownResult(ShutdownMode.Drain, [], runningWorkItemCount: 0));

    /// <summary>
    /// Stops the group accepting items. <see cref="ShutdownMode.Drain"/> runs every accepted item;
    /// <see cref="ShutdownMode.Abandon"/> lets the items already started finish and hands the queued ones back. The
    /// pool and its other groups go on.
    /// </summary>
    /// <param name="mode">Whether to drain or abandon the group's queued items.</param>
    /// <param name="cancellationToken">Turns a drain into an abandon when cancelled; once cancelled, the task completes
    /// without waiting for the items still running (<see cref="ShutdownResult.RunningWorkItemCount"/>).</param>
    /// <returns>A task that completes when every accepted item has run or been handed back. Every call returns the same
    /// outcome. Do not block on it from one of the group's own items.</returns>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="mode"/> is not a defined <see cref="ShutdownMode"/>.</exception>
    public Task<ShutdownResult> ShutdownAsync(ShutdownMode mode, CancellationToken cancellationToken = default)
    {
        if (mode is not (ShutdownMode.Drain or ShutdownMode.Abandon))
        {
            throw new ArgumentOutOfRangeException(nameof(mode), mode, $"{nameof(mode)} must be {nameof(ShutdownMode.Drain)} or {nameof(ShutdownMode.Abandon)}.");
        }

        Task<ShutdownResult> shutdown = Begin();
        if (mode == ShutdownMode.Abandon || cancellationToken.IsCancellationRequested)
        {
            Abandon();
        }

        return cancellationToken.CanBeCanceled && !shutdown.IsCompleted
            ? AbandonOnCancellationAsync(shutdown, cancellationToken)
            : shutdown;
    }

    /// <summary>
    /// Stops the group accepting items and waits until every accepted item has run (a drain). Idempotent. Inside one of
    /// the group's items, on any of the pool's workers, or inside an item the pool's shutdown runs itself, it does not wait
    /// (the items it would wait for may need that thread); they still run.
    /// </summary>
    public void Dispose()
    {
        if (Begin().IsCompleted || !MayWaitHere)
        {
            return;
        }

        // On the drained signal itself, not the shutdown task's continuation: disposal must not depend on the built-in
        // pool having a thread free.
        _turns.Drained.Wait();
    }

    /// <summary>Like <see cref="Dispose"/> (a drain), waiting asynchronously.</summary>
    /// <returns>A task that completes when every accepted item has run.</returns>
    public async ValueTask DisposeAsync()
    {
        Task<ShutdownResult> shutdown = Begin();
        if (MayWaitHere)
        {
            await shutdown.ConfigureAwait(false);
        }
    }

    // Not inside the group's turn, nor on a thread that runs the pool's items (a worker, or the thread running the
    // shutdown's own items, the only one left to run the group's turn).
    private bool MayWaitHere => !_turns.IsCurrent && !_pool.IsRunningItemsOnCurrentThread;

    // The shutdown's state, made by the first call that needs it (an idle group does not carry it).
    private GroupShutdown Shutdown
    {
        get
        {
            GroupShutdown? shutdown = Volatile.Read(ref _shutdown);
            if (shutdown is null)
            {
                Interlocked.CompareExchange(ref _shutdown, new GroupShutdown(), null);
                shutdown = _shutdown!;
            }

            return shutdown;
        }
    }

    private Task<ShutdownResult> Begin()
    {
        // The common end of an actor's group: this call closes it with nothing pending, so it drained at its close. It
        // leaves the pool's list now, with the one result every such drain has, and keeps the shared state of such
        // groups (GroupShutdown.DrainedAtClose) instead of a lock and a list of its own. A racing call that finds the
        // group closed takes the path below, whose Close changes nothing, and reaches the same result.
        if (Volatile.Read(ref _shutdown) is null && _turns.Close() && _turns.Drained.IsCompleted)
        {
            _pool.OnGroupShutDown(this);
            if (Interlocked.CompareExchange(ref _shutdown, GroupShutdown.DrainedAtClose, null) is null)
            {
                return s_drainedWithNothingPending;
            }

            // A QueueAsync waiting for room made the shutdown state since the read above, and may hold its Closing
            // token: the path below sets the outcome (the same) and cancels that token.
        }

        GroupShutdown shutdown = Shutdown;
        if (shutdown == GroupShutdown.DrainedAtClose)
        {
            return s_drainedWithNothingPending;
        }

        Task<ShutdownResult> outcome;
        lock (shutdown.Lock)
        {
            if (shutdown.Task is null)
            {
                _turns.Close();

                // A group with nothing pending drained at its close: it leaves the pool's list now, with the one result
                // every such drain has, instead of through an awaited continuation (a million actors' groups disposed
                // one after another each pay only this).
                if (_turns.Drained.IsCompleted)
                {
                    _pool.OnGroupShutDown(this);
                    shutdown.Task = s_drainedWithNothingPending;
                }
                else
                {
                    shutdown.Task = FinishWhenDrainedAsync();
                }
            }

            outcome = shutdown.Task;
        }

        // After the outcome is set under the lock: a QueueAsync that took its Closing token before is told now, one
        // after gets a cancelled token (GroupShutdown.Closing).
        shutdown.CancelClosing();
        return outcome;
    }

    /// <summary>
    /// For a queue call that waits for the pool's room (<c>QueueAsync</c>, and <c>Queue</c> and <c>QueueBatch</c> off the
    /// pool's workers): cancelled once the group's shutdown has begun (<see cref="GroupShutdown.Closing"/>); the shutdown
    /// state is made for it.
    /// </summary>
    internal CancellationToken ClosingToken()
    {
        GroupShutdown shutdown = Shutdown;
        if (shutdown == GroupShutdown.DrainedAtClose)
        {
            return new CancellationToken(canceled: true);
        }

        lock (shutdown.Lock)
        {
            return shutdown.Closing;
        }
    }

    private void Abandon()
    {
        // Lock is re-entrant: an item the abandon hands back never runs here, but a late turn it queues may run on this
        // thread when the pool has already finished (Publisher.PublishAccepted).
        GroupShutdown shutdown = Shutdown;
        if (shutdown == GroupShutdown.DrainedAtClose)
        {
            return; // drained when it closed: nothing queued, and nothing can come
        }

        lock (shutdown.Lock)
        {
            if (shutdown.AbandonRequested)
            {
                return;
            }

            shutdown.AbandonRequested = true;
            _turns.Abandon(shutdown.Abandoned);
        }
    }

    private async Task<ShutdownResult> FinishWhenDrainedAsync()
    {
        await _turns.Drained.ConfigureAwait(false);
        _pool.OnGroupShutDown(this);
        return Result(runningWorkItemCount: 0);
    }

    private async Task<ShutdownResult> AbandonOnCancellationAsync(Task<ShutdownResult> shutdown, CancellationToken cancellationToken)
    {
        var cancelled = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        await using (cancellationToken.UnsafeRegister(static s => ((TaskCompletionSource)s!).TrySetResult(), cancelled).ConfigureAwait(false))
        {
            if (await Task.WhenAny(shutdown, cancelled.Task).ConfigureAwait(false) == shutdown)
            {
                return await shutdown.ConfigureAwait(false);
            }
        }

        Abandon();
        return shutdown.IsCompleted ? await shutdown.ConfigureAwait(false) : Result(_turns.RunningCount);
    }

    private ShutdownResult Result(int runningWorkItemCount)
    {
        GroupShutdown shutdown = Shutdown;
        if (shutdown == GroupShutdown.DrainedAtClose)
        {
            return s_drainedWithNothingPending.Result;
        }

        lock (shutdown.Lock)
        {
            return new ShutdownResult(shutdown.AbandonRequested ? ShutdownMode.Abandon : ShutdownMode.Drain, [.. shutdown.Abandoned], runningWorkItemCount);
        }
    }
}
