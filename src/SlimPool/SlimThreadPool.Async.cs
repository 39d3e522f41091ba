using SlimPool.Async;

namespace SlimPool;

/// <summary>The pool's async/await integration: a TaskScheduler, a SynchronizationContext, Run and SwitchTo.</summary>
public sealed partial class SlimThreadPool
{
    private readonly SlimSynchronizationContext _synchronizationContext;
    private readonly SlimTaskScheduler _taskScheduler;
    private readonly SlimPipeScheduler _pipeScheduler;

    /// <summary>
    /// A <see cref="System.Threading.Tasks.TaskScheduler"/> that runs tasks as items of this pool, for
    /// <c>Task.Factory.StartNew(..., pool.TaskScheduler)</c>. It inlines a task only on this pool's own workers;
    /// <see cref="System.Threading.Tasks.TaskScheduler.MaximumConcurrencyLevel"/> is <see cref="WorkerCount"/>;
    /// tasks created with <see cref="TaskCreationOptions.LongRunning"/> get a dedicated thread instead of a worker. A task it
    /// no longer accepts (an abandon began, or the shutdown is over) runs on the built-in thread pool, like a late
    /// <c>Post</c> to <see cref="SynchronizationContext"/>: the scheduler cannot tell a new task from an await's
    /// continuation, and throwing at a continuation would end the process. <see cref="Run(Action, CancellationToken)"/>
    /// and its overloads throw instead.
    /// </summary>
    public TaskScheduler TaskScheduler => _taskScheduler;

    /// <summary>
    /// The <see cref="System.Threading.SynchronizationContext"/> installed on every worker (unless
    /// <see cref="SlimThreadPoolOptions.UseSynchronizationContext"/> is off): <c>Post</c> queues
    /// to this pool, so an <c>await</c> in code running on the pool resumes on the pool. <c>Send</c> runs the
    /// callback inline on a worker of this pool (so it can never deadlock there) and otherwise posts it and
    /// waits for it.
    /// </summary>
    public SynchronizationContext SynchronizationContext => _synchronizationContext;

    /// <summary>
    /// A <see cref="System.IO.Pipelines.PipeScheduler"/> that runs each continuation a pipe schedules as one of this
    /// pool's items, for <see cref="System.IO.Pipelines.PipeOptions"/>' reader and writer schedulers: nothing is allocated
    /// per continuation; a continuation is never refused for back-pressure (it is the rest of someone's read or flush),
    /// and one that comes after the pool stopped accepting work runs on the built-in thread pool, as a late <c>Post</c>
    /// to <see cref="SynchronizationContext"/> does. The same instance on every read.
    /// </summary>
    public System.IO.Pipelines.PipeScheduler PipeScheduler => _pipeScheduler;

    /// <summary>Runs <paramref name="action"/> on the pool; the task completes when it returns or throws.</summary>
    /// <param name="action">The work.</param>
    /// <param name="cancellationToken">If cancelled before the work starts, the work is skipped and the task ends cancelled; the
    /// work itself may observe it too (an <see cref="OperationCanceledException"/> for this token also ends the task cancelled).</param>
    /// <returns>A task for the work: faulted with its exception, or cancelled by an <see cref="OperationCanceledException"/>.</returns>
    /// <exception cref="ArgumentNullException"><paramref name="action"/> is <see langword="null"/>.</exception>
    /// <exception cref="ObjectDisposedException">The pool has been disposed.</exception>
    public Task Run(Action action, CancellationToken cancellationToken = default) => _taskScheduler.Run(action, cancellationToken);

    /// <summary>Runs <paramref name="function"/> on the pool and returns its result.</summary>
    /// <typeparam name="T">The result type.</typeparam>
    /// <param name="function">The work.</param>
    /// <param name="cancellationToken">If cancelled before the work starts, the work is skipped and the task ends cancelled; the
    /// work itself may observe it too (an <see cref="OperationCanceledException"/> for this token also ends the task cancelled).</param>
    /// <returns>A task for the result: faulted with the function's exception, or cancelled.</returns>
    /// <exception cref="ArgumentNullException"><paramref name="function"/> is <see langword="null"/>.</exception>
    /// <exception cref="ObjectDisposedException">The pool has been disposed.</exception>
    public Task<T> Run<T>(Func<T> function, CancellationToken cancellationToken = default) => _taskScheduler.Run(function, cancellationToken);

    /// <summary>
    /// Runs an async flow on the pool: the flow starts on a worker, and every continuation after an
    /// <c>await</c> (that does not use <c>ConfigureAwait(false)</c>) runs on the pool too.
    /// </summary>
    /// <param name="function">The async flow.</param>
    /// <param name="cancellationToken">If cancelled before the work starts, the work is skipped and the task ends cancelled; the
    /// work itself may observe it too (an <see cref="OperationCanceledException"/> for this token also ends the task cancelled).</param>
    /// <returns>A task that completes with the flow: faulted with its exception, or cancelled.</returns>
    /// <exception cref="ArgumentNullException"><paramref name="function"/> is <see langword="null"/>.</exception>
    /// <exception cref="ObjectDisposedException">The pool has been disposed.</exception>
    public Task Run(Func<Task> function, CancellationToken cancellationToken = default) => _taskScheduler.Run(function, cancellationToken);

    /// <summary>Runs an async flow with a result on the pool; continuations stay on the pool.</summary>
    /// <typeparam name="T">The result type.</typeparam>
    /// <param name="function">The async flow.</param>
    /// <param name="cancellationToken">If cancelled before the work starts, the work is skipped and the task ends cancelled; the
    /// work itself may observe it too (an <see cref="OperationCanceledException"/> for this token also ends the task cancelled).</param>
    /// <returns>A task that completes with the flow's result: faulted with its exception, or cancelled.</returns>
    /// <exception cref="ArgumentNullException"><paramref name="function"/> is <see langword="null"/>.</exception>
    /// <exception cref="ObjectDisposedException">The pool has been disposed.</exception>
    public Task<T> Run<T>(Func<Task<T>> function, CancellationToken cancellationToken = default) => _taskScheduler.Run(function, cancellationToken);

    /// <summary>
    /// An awaitable that moves the rest of an async method onto this pool: <c>await pool.SwitchTo();</c>.
    /// Already on one of this pool's workers it completes at once, unless <paramref name="alwaysYield"/> is set.
    /// The rest of the method runs as an item of the pool, under the pool's <see cref="SynchronizationContext"/>, so its
    /// later awaits resume on the pool; with <see cref="SlimThreadPoolOptions.UseSynchronizationContext"/> off it runs
    /// outside any task, as an item on the built-in pool's threads does, and its later awaits resume through
    /// <see cref="TaskScheduler.Default"/> (use <see cref="Run(Func{Task}, CancellationToken)"/> to keep them on the pool).
    /// </summary>
    /// <param name="alwaysYield">Queue the continuation even when already on the pool (lets other items run).</param>
    /// <returns>The awaitable; awaiting it on a disposed pool throws <see cref="ObjectDisposedException"/>.</returns>
    public SwitchToAwaitable SwitchTo(bool alwaysYield = false) => new(this, alwaysYield);
}
