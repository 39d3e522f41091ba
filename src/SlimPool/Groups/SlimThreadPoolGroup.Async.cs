namespace SlimPool;

/// <summary>The group's async surface: the four <c>Task.Run</c> shapes and <see cref="SwitchTo"/>, as the pool has them.</summary>
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
}
