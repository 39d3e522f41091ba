using System.Runtime.CompilerServices;
using SlimPool.Groups;
using SlimPool.Lifecycle;
using SlimPool.Queues;
using SlimPool.Scheduling;
using SlimPool.Workers;

namespace SlimPool;

/// <summary>Queueing: accepting an item (its token, the bound and its back-pressure), the asynchronous forms, continuations.</summary>
public sealed partial class SlimThreadPool
{
    /// <summary>How deep items run inline by a full bounded <c>Queue</c> on a worker may nest (see <see cref="QueueCore"/>).</summary>
    internal const int MaxInlineDepth = 16;

    // How deep the current thread is in items run inline by a full bounded Queue.
    [ThreadStatic]
    private static int t_inlineDepth;

    /// <summary>
    /// Queues <paramref name="callback"/>, waiting asynchronously for room while the queue is full
    /// (<see cref="SlimThreadPoolOptions.BoundedCapacity"/>); without a bound it completes at once. Like
    /// <c>ChannelWriter.WriteAsync</c>, the token cancels the wait, not the item.
    /// </summary>
    /// <param name="callback">The work.</param>
    /// <param name="cancellationToken">Cancels the wait for room; the item is then not queued.</param>
    /// <returns>A task that completes once the item is queued: cancelled if the token fired first, faulted with
    /// <see cref="ObjectDisposedException"/> if the pool shut down first (the item is then not queued).</returns>
    /// <exception cref="ArgumentNullException"><paramref name="callback"/> is <see langword="null"/>.</exception>
    public ValueTask QueueAsync(Action callback, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(callback);
        return QueueAsyncCore(callback, null, cancellationToken);
    }

    /// <summary>Queues <paramref name="callback"/> with <paramref name="state"/>, waiting asynchronously for room (see <see cref="QueueAsync(Action, CancellationToken)"/>).</summary>
    /// <param name="callback">The work.</param>
    /// <param name="state">The argument passed to <paramref name="callback"/>.</param>
    /// <param name="cancellationToken">Cancels the wait for room; the item is then not queued.</param>
    /// <returns>A task that completes once the item is queued (see <see cref="QueueAsync(Action, CancellationToken)"/>).</returns>
    /// <exception cref="ArgumentNullException"><paramref name="callback"/> is <see langword="null"/>.</exception>
    public ValueTask QueueAsync(Action<object?> callback, object? state, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(callback);
        return QueueAsyncCore(callback, state, cancellationToken);
    }

    /// <summary>Queues <paramref name="workItem"/>, waiting asynchronously for room (see <see cref="QueueAsync(Action, CancellationToken)"/>).</summary>
    /// <param name="workItem">The work.</param>
    /// <param name="cancellationToken">Cancels the wait for room; the item is then not queued.</param>
    /// <returns>A task that completes once the item is queued (see <see cref="QueueAsync(Action, CancellationToken)"/>).</returns>
    /// <exception cref="ArgumentNullException"><paramref name="workItem"/> is <see langword="null"/>.</exception>
    public ValueTask QueueAsync(IWorkItem workItem, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(workItem);
        return QueueAsyncCore(workItem, null, cancellationToken);
    }

    /// <summary>
    /// Queues a callback from the pool's own machinery (tasks, continuations, SwitchTo): never refused or
    /// delayed by <see cref="SlimThreadPoolOptions.BoundedCapacity"/> (an await chain must not wait on the
    /// queue it feeds), and accepted through a drain, like the work it continues; false once an abandon has begun or
    /// the shutdown's last look is over (<see cref="IsClosedToContinuations"/>). The item runs in
    /// <paramref name="context"/>, or with none in the worker's own (see <see cref="Async.ISchedulingTarget.TryEnqueue(object, object?, ExecutionContext?)"/>).
    /// </summary>
    internal bool TryEnqueue(object callback, object? state, ExecutionContext? context)
    {
        if (IsClosedToContinuations)
        {
            return false;
        }

        // Past the shutdown flag, the publish hands the item to the drain (ShutdownCoordinator.OnQueuedDuringShutdown).
        _gate?.ForceAcquire();
        _publisher.Publish(callback, state, preferLocal: true, context);
        return true;
    }

    /// <summary>
    /// Takes a capacity slot for an item held outside the pool's queue (a group's): false when the pool is full and
    /// <paramref name="wait"/> is false, or when it shut down while waiting. With <paramref name="wait"/>, a caller off
    /// the pool waits for room; one of the pool's workers goes over the bound instead of waiting on its own pool.
    /// </summary>
    internal bool TryReserveSlot(bool wait) => TryReserveSlots(1, wait);

    /// <summary>Takes a capacity slot whether or not the pool is full (continuations of accepted work).</summary>
    internal void ForceReserveSlot() => _gate?.ForceAcquire();

    /// <summary>Gives back a slot taken by <see cref="TryReserveSlot"/> or <see cref="ForceReserveSlot"/>.</summary>
    internal void ReleaseSlot() => _gate?.Release();

    /// <summary>
    /// Whether continuations and tasks of accepted work are refused: an abandon has begun, or the shutdown's last look
    /// is over. Until then a drain takes them, the pool's and its groups'; after, the thread running a leftover item of the
    /// shutdown takes what that item posts (<see cref="ShutdownCoordinator.IsRunningLeftoversOnCurrentThread"/>).
    /// </summary>
    internal bool IsClosedToContinuations =>
        _shutdown.IsShutDown && (_shutdown.IsAbandoning || _shutdown.IsPastLastLook) && !_shutdown.IsRunningLeftoversOnCurrentThread;

    private void QueueCore(object callback, object? state, CancellationToken cancellationToken, bool preferLocal = true, WorkItemPriority priority = WorkItemPriority.Normal)
    {
        WrapForToken(ref callback, ref state, cancellationToken);
        CapacityGate? gate = _gate;
        if (gate is not null && !gate.TryAcquire() && !AcquireWhenFull(gate, callback, state, priority, cancellationToken))
        {
            return; // run inline, or skipped for its token while it waited
        }

        if (!TryPublishHoldingSlot(callback, state, preferLocal, priority))
        {
            ThrowDisposed();
        }
    }

    // A bounded pool is full: true once the caller holds a slot, false if the item ran here instead, or was skipped for
    // its token while it waited. Kept out of QueueCore, whose common path it would otherwise crowd with its locals.
    [MethodImpl(MethodImplOptions.NoInlining)]
    private bool AcquireWhenFull(CapacityGate gate, object callback, object? state, WorkItemPriority priority, CancellationToken cancellationToken)
    {
        if (IsShutDown)
        {
            ThrowDisposed();
        }

        if (IsOwnWorker)
        {
            // Blocking a worker on its own queue could deadlock the pool: run the item here instead, unless items
            // run this way are already nested deep on this thread (an item that re-queues itself into a full
            // queue would recurse without end); past that depth the item is queued over the bound, as
            // continuations are. So is a Low item: run here, it would start ahead of every item waiting in the full
            // queue, where it waits while others are queued (WorkItemPriority.Low).
            if (priority != WorkItemPriority.Low && t_inlineDepth < MaxInlineDepth)
            {
                RunInline(callback, state);
                return false;
            }

            gate.ForceAcquire();
            return true;
        }

        bool acquired;
        try
        {
            acquired = gate.AcquireOneBlocking(cancellationToken);
        }
        catch (OperationCanceledException) when (cancellationToken.IsCancellationRequested)
        {
            // The item's token fired while it waited for room: it is skipped, as in the queue, without the wait for room
            // it can no longer use (counted skipped and completed, as a skipped item is).
            _onItemSkipped();
            OnItemCompleted(null);
            return false;
        }

        if (!acquired)
        {
            ThrowDisposed();
        }

        return true;
    }

    /// <summary>
    /// Where an item that carries no context starts when it runs on this thread, inside whatever runs here now: on one of
    /// this pool's workers the worker's own context (as its <c>OnThreadStart</c> hook left it), anywhere else a clean one.
    /// </summary>
    internal ExecutionContext CleanContextHere => CurrentWorker.CleanContextOf(_workerSet) ?? ThreadContexts.Clean;

    /// <summary>
    /// Runs <paramref name="item"/> here, inside the item running now, as a part of it (not counted apart), named as
    /// itself by the slow-item watch while it runs and the outer item again after: an Rx action that the item of Rx's
    /// queue for absolute times found due runs so, in due-time order, as itself.
    /// </summary>
    internal void RunNamedInside(IWorkItem item)
    {
        WorkerState? worker = OwnWorkerState;
        bool naming = _slowItems is not null && worker is not null;
        var outer = naming ? worker!.EnterNested(item, null) : default;
        try
        {
            item.Execute();
        }
        finally
        {
            if (naming)
            {
                worker!.RestoreRunning(outer);
            }
        }
    }

    // A full bounded Queue on one of this pool's workers runs the item here, as a worker would have run it
    // (WorkItemRunner.ExecuteNested: in the context it flowed with, else the worker's clean one), counted as the worker's,
    // and named as itself by the slow-item watch, the outer item again after.
    private void RunInline(object callback, object? state)
    {
        ExecutionContext context = CaptureContextToFlow() ?? CleanContextHere;
        WorkerState? worker = OwnWorkerState;
        bool naming = _slowItems is not null && worker is not null;
        var outer = naming ? worker!.EnterNested(callback, state) : default;
        t_inlineDepth++;
        try
        {
            _runner.ExecuteNested(new QueuedWorkItem(callback, state, context: null), context, _loop.SynchronizationContext);
        }
        finally
        {
            t_inlineDepth--;
        }

        OnItemCompleted(worker);
        if (naming)
        {
            worker!.RestoreRunning(outer);
        }
    }

    private bool TryQueueCore(object callback, object? state, CancellationToken cancellationToken, bool preferLocal = true, WorkItemPriority priority = WorkItemPriority.Normal)
    {
        WrapForToken(ref callback, ref state, cancellationToken);
        CapacityGate? gate = _gate;
        return (gate is null || gate.TryAcquire()) && TryPublishHoldingSlot(callback, state, preferLocal, priority);
    }

    private ValueTask QueueAsyncCore(object callback, object? state, CancellationToken cancellationToken)
    {
        if (cancellationToken.IsCancellationRequested)
        {
            return ValueTask.FromCanceled(cancellationToken);
        }

        CapacityGate? gate = _gate;
        if (gate is null || gate.TryAcquire())
        {
            return TryPublishHoldingSlot(callback, state) ? default : ValueTask.FromException(NewDisposedException());
        }

        // The context is the caller's, captured now: the wait ends on another thread, in another context (the default
        // one under a suppressed flow), which the item must not take for its own.
        return WaitThenQueueAsync(gate, callback, state, CaptureContextToFlow(), cancellationToken);
    }

    private async ValueTask WaitThenQueueAsync(CapacityGate gate, object callback, object? state, ExecutionContext? context, CancellationToken cancellationToken)
    {
        if (!await gate.AcquireAsync(cancellationToken).ConfigureAwait(false))
        {
            ThrowDisposed();
        }

        if (!TryPublishHoldingSlot(callback, state, context))
        {
            ThrowDisposed();
        }
    }

    // A token that can be cancelled costs one wrapper object; CancellationToken.None costs nothing.
    private void WrapForToken(ref object callback, ref object? state, CancellationToken cancellationToken)
    {
        if (cancellationToken.CanBeCanceled)
        {
            callback = new CancellableWorkItem(callback, state, cancellationToken, _onItemSkipped);
            state = null;
        }
    }

    // The caller holds a capacity slot for this item (when the pool is bounded): published, the item keeps it until
    // a worker dequeues it; refused, the slot goes back here.
    private bool TryPublishHoldingSlot(object callback, object? state, bool preferLocal = true, WorkItemPriority priority = WorkItemPriority.Normal)
    {
        if (_publisher.TryPublish(callback, state, preferLocal, priority))
        {
            return true;
        }

        _gate?.Release();
        return false;
    }

    // The same for an item whose context its caller captured earlier (a QueueAsync that waited for room).
    private bool TryPublishHoldingSlot(object callback, object? state, ExecutionContext? context)
    {
        if (_publisher.TryPublish(callback, state, context))
        {
            return true;
        }

        _gate?.Release();
        return false;
    }
}
