namespace SlimPool;

/// <summary>
/// The group's async surface, as the pool has it: the four <c>Task.Run</c> shapes, <see cref="SwitchTo"/>,
/// <see cref="QueueAsync(Action, CancellationToken)"/> and <see cref="WaitForIdleAsync"/>.
/// </summary>
public sealed partial class SlimThreadPoolGroup
{
    /// <summary>Runs <paramref name="action"/> as one of the group's items; the task completes when it returns or throws.</summary>
    /// <param name="action">The work.</param>
    /// <param name="cancellationToken">If cancelled before the work starts, the work is skipped and the task ends cancelled; the
    /// work itself may observe it too (an <see cref="OperationCanceledException"/> for this token also ends the task cancelled).</param>
    /// <returns>A task for the work: faulted with its exception, or cancelled.</returns>
    /// <exception cref="ArgumentNullException"><paramref name="action"/> is <see langword="null"/>.</exception>
    /// <exception cref="ObjectDisposedException">The group or its pool has been shut down.</exception>
    public Task Run(Action action, CancellationToken cancellationToken = default) => Scheduler.Run(action, cancellationToken);

    /// <summary>Runs <paramref name="function"/> as one of the group's items and returns its result.</summary>
    /// <typeparam name="T">The result type.</typeparam>
    /// <param name="function">The work.</param>
    /// <param name="cancellationToken">If cancelled before the work starts, the work is skipped and the task ends cancelled.</param>
    /// <returns>A task for the result: faulted with the function's exception, or cancelled.</returns>
    /// <exception cref="ArgumentNullException"><paramref name="function"/> is <see langword="null"/>.</exception>
    /// <exception cref="ObjectDisposedException">The group or its pool has been shut down.</exception>
    public Task<T> Run<T>(Func<T> function, CancellationToken cancellationToken = default) => Scheduler.Run(function, cancellationToken);

    /// <summary>
    /// Runs an async flow in the group: it starts as one of the group's items, and every continuation after an
    /// <c>await</c> (that does not use <c>ConfigureAwait(false)</c>) is one of its items too, so a serial group runs the
    /// flow's steps one at a time with its other items, never two at once.
    /// </summary>
    /// <param name="function">The async flow.</param>
    /// <param name="cancellationToken">If cancelled before the work starts, the work is skipped and the task ends cancelled.</param>
    /// <returns>A task that completes with the flow: faulted with its exception, or cancelled.</returns>
    /// <exception cref="ArgumentNullException"><paramref name="function"/> is <see langword="null"/>.</exception>
    /// <exception cref="ObjectDisposedException">The group or its pool has been shut down.</exception>
    public Task Run(Func<Task> function, CancellationToken cancellationToken = default) => Scheduler.Run(function, cancellationToken);

    /// <summary>Runs an async flow with a result in the group; its continuations are the group's items too.</summary>
    /// <typeparam name="T">The result type.</typeparam>
    /// <param name="function">The async flow.</param>
    /// <param name="cancellationToken">If cancelled before the work starts, the work is skipped and the task ends cancelled.</param>
    /// <returns>A task that completes with the flow's result: faulted with its exception, or cancelled.</returns>
    /// <exception cref="ArgumentNullException"><paramref name="function"/> is <see langword="null"/>.</exception>
    /// <exception cref="ObjectDisposedException">The group or its pool has been shut down.</exception>
    public Task<T> Run<T>(Func<Task<T>> function, CancellationToken cancellationToken = default) => Scheduler.Run(function, cancellationToken);

    /// <summary>
    /// An awaitable that moves the rest of an async method into the group, as one of its items:
    /// <c>await group.SwitchTo();</c>. Already inside one of the group's items it completes at once, unless
    /// <paramref name="alwaysYield"/> is set.
    /// </summary>
    /// <param name="alwaysYield">Queue the continuation even when already in the group (lets its other items run).</param>
    /// <returns>The awaitable; awaiting it once the group or its pool shut down throws <see cref="ObjectDisposedException"/>.</returns>
    public SwitchToAwaitable SwitchTo(bool alwaysYield = false) => new(this, alwaysYield);

    /// <summary>
    /// Queues <paramref name="callback"/> to the group, waiting without blocking a thread while the pool's
    /// <see cref="SlimThreadPoolOptions.BoundedCapacity"/> is reached (the group's items hold the pool's slots).
    /// </summary>
    /// <param name="callback">The work to run.</param>
    /// <param name="cancellationToken">Cancels the wait for room; the item, once accepted, runs.</param>
    /// <returns>A task that completes once the item is accepted; it fails with <see cref="ObjectDisposedException"/> if
    /// the group or its pool shuts down first, and is cancelled if <paramref name="cancellationToken"/> is.</returns>
    /// <exception cref="ArgumentNullException"><paramref name="callback"/> is <see langword="null"/>.</exception>
    public ValueTask QueueAsync(Action callback, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(callback);
        return QueueAsyncCore(callback, null, cancellationToken);
    }

    /// <summary>Queues <paramref name="callback"/> with <paramref name="state"/>, waiting for room (see <see cref="QueueAsync(Action, CancellationToken)"/>).</summary>
    /// <param name="callback">The work to run.</param>
    /// <param name="state">The argument passed to <paramref name="callback"/>.</param>
    /// <param name="cancellationToken">Cancels the wait for room.</param>
    /// <returns>A task that completes once the item is accepted.</returns>
    /// <exception cref="ArgumentNullException"><paramref name="callback"/> is <see langword="null"/>.</exception>
    public ValueTask QueueAsync(Action<object?> callback, object? state, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(callback);
        return QueueAsyncCore(callback, state, cancellationToken);
    }

    /// <summary>Queues a reusable work item, waiting for room (see <see cref="QueueAsync(Action, CancellationToken)"/>).</summary>
    /// <param name="workItem">The work to run.</param>
    /// <param name="cancellationToken">Cancels the wait for room.</param>
    /// <returns>A task that completes once the item is accepted.</returns>
    /// <exception cref="ArgumentNullException"><paramref name="workItem"/> is <see langword="null"/>.</exception>
    public ValueTask QueueAsync(IWorkItem workItem, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(workItem);
        return QueueAsyncCore(workItem, null, cancellationToken);
    }

    /// <summary>
    /// A task that completes once the group holds nothing unfinished: every item it accepted has run or come back. An
    /// async flow waiting between two steps (its next step not yet queued) counts as nothing, as for
    /// <see cref="SlimThreadPool.WaitForIdleAsync"/>. Costs nothing while nobody waits.
    /// </summary>
    /// <param name="cancellationToken">Cancels the wait.</param>
    /// <returns>The task; completed at once if the group is idle now.</returns>
    public Task WaitForIdleAsync(CancellationToken cancellationToken = default) => _turns.WaitForIdleAsync(cancellationToken);

    private ValueTask QueueAsyncCore(object callback, object? state, CancellationToken cancellationToken)
    {
        if (cancellationToken.IsCancellationRequested)
        {
            return ValueTask.FromCanceled(cancellationToken);
        }

        if (_turns.TryAccept(callback, state))
        {
            return default;
        }

        // Refused: shut down, or the pool is full; only the second is worth a wait.
        // The context is the caller's, captured now (the wait ends on another thread): see the pool's QueueAsync.
        return _pool.IsShutDown || _turns.IsClosed
            ? ValueTask.FromException(NewShutDownException())
            : WaitThenQueueAsync(callback, state, _pool.CaptureContextToFlow(), cancellationToken);
    }

    private async ValueTask WaitThenQueueAsync(object callback, object? state, ExecutionContext? context, CancellationToken cancellationToken)
    {
        // The wait for the pool's room ends when the group shuts down too (its Closing token), not only when the pool
        // has room or shuts down.
        bool reserved;
        using (var wait = CancellationTokenSource.CreateLinkedTokenSource(cancellationToken, ClosingToken()))
        {
            try
            {
                reserved = await _pool.ReserveSlotAsync(wait.Token).ConfigureAwait(false);
            }
            catch (OperationCanceledException)
            {
                // The caller's cancellation names the caller's token (as the pool's QueueAsync does), not the linked one;
                // otherwise it was the group's shutdown.
                cancellationToken.ThrowIfCancellationRequested();
                throw NewShutDownException();
            }
        }

        if (!reserved)
        {
            throw NewShutDownException();
        }

        // The slot may have been handed over just before the pool's shutdown closed its gate, and this continuation run
        // after the shutdown: the pool is asked again, as TryAccept asks it before reserving (the group's own close is
        // AcceptReserved's to see). An item accepted past the pool's shutdown would run after ShutdownAsync returned.
        if (_pool.IsShutDown)
        {
            _pool.ReleaseSlot();
            throw NewShutDownException();
        }

        if (!_turns.AcceptReserved(callback, state, context))
        {
            throw NewShutDownException();
        }
    }
}
