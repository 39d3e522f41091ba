namespace SlimPool.Async;

/// <summary>
/// Where a <see cref="SlimTaskScheduler"/> and a <see cref="SlimSynchronizationContext"/> send their items: a pool, or
/// a group of a pool's items.
/// </summary>
internal interface ISchedulingTarget
{
    /// <summary>The pool whose workers run the items.</summary>
    SlimThreadPool Pool { get; }

    /// <summary>How many of the target's items may run at once (<see cref="TaskScheduler.MaximumConcurrencyLevel"/>).</summary>
    int MaximumConcurrencyLevel { get; }

    /// <summary>
    /// Whether the current thread is running one of the target's items now, so that it may run another inline (a task,
    /// a <c>Send</c>) without breaking what the target promises about where and how many of its items run.
    /// </summary>
    bool IsRunningItemsOnCurrentThread { get; }

    /// <summary>
    /// Queues an item of the scheduler's or the context's own: never refused or delayed for back-pressure (an await
    /// chain must not wait on the queue it feeds); false once the target no longer accepts work. It carries the
    /// caller's context when the pool flows it (<see cref="SlimThreadPool.CaptureContextToFlow"/>).
    /// </summary>
    bool TryEnqueue(object callback, object? state) => TryEnqueue(callback, state, Pool.CaptureContextToFlow());

    /// <summary>
    /// <see cref="TryEnqueue(object, object?)"/> with the item's context given: one captured earlier, where the item was
    /// made (a timed action's, at its <c>Schedule</c>: the timer fires on a thread whose context is no part of it), or
    /// none for an item that carries its own (a task runs in the context it captured when it was made; the thread that
    /// queues it, for a continuation whoever completed the antecedent, must not lend it another). With none, the item
    /// starts from the worker's context, as its <c>OnThreadStart</c> hook left it.
    /// </summary>
    bool TryEnqueue(object callback, object? state, ExecutionContext? context);

    /// <summary>
    /// Whether a Send to the target runs its callback inline on the current thread: the target's items run here, or (a
    /// group) one of its items is suspended here under what runs now, so the group could not go on while this waited.
    /// </summary>
    bool MaySendInline { get; }

    /// <summary>
    /// Where <see cref="MaySendInline"/>: runs <paramref name="action"/> on this thread as the target's own work (for a
    /// group whose item is suspended here, back inside the group while it runs).
    /// </summary>
    void RunInline(Action<object?> action, object? state);

    /// <summary>
    /// Runs an item the target refused (<see cref="TryEnqueue(object, object?, ExecutionContext?)"/> returned false) on
    /// the built-in pool, so that a late continuation is neither dropped nor thrown at: at once for the pool and for a
    /// wider group; for a serial group once its item still running has finished, one at a time in the order they came
    /// (<see cref="Groups.RefusedContinuations"/>), so that it never runs two of its steps at once.
    /// </summary>
    void RunRefused(Action<object?> callback, object? state);

    /// <summary>Whether the target no longer accepts new work (it, or for a group its pool, began shutting down).</summary>
    bool IsShutDown { get; }

    /// <summary>The exception new work gets once <see cref="IsShutDown"/>: it names the pool or the group.</summary>
    ObjectDisposedException NewDisposedException();
}
