using SlimPool.Queues;

namespace SlimPool;

/// <summary>
/// What every pool offers: SlimPool's own <see cref="SlimThreadPool"/> and the built-in pool's adapter
/// <see cref="ManagedThreadPool"/> implement it, so that benchmarks, tests and applications can swap one
/// for the other.
/// </summary>
/// <remarks>
/// <para><c>Queue</c> throws <see cref="ObjectDisposedException"/> once the pool is disposed; <c>TryQueue</c>
/// returns <see langword="false"/> instead. A <see langword="null"/> callback or work item throws
/// <see cref="ArgumentNullException"/> from both.</para>
/// <para>The overloads with a <see cref="CancellationToken"/> skip the item if the token is cancelled before the
/// item starts (it then counts as run, and as cancelled in the pool's statistics); an item already running is
/// not interrupted: it may observe the token itself. <see cref="CancellationToken.None"/> costs nothing extra; a
/// token that can be cancelled costs one small allocation per item.</para>
/// <para>The cancellable overloads have default implementations (a wrapper item that checks the token), so an
/// implementation written before they existed keeps compiling; this library's pools implement them, once, in <see cref="ThreadPoolBase"/>.</para>
/// <para>Every accepted item runs exactly once. Disposing drains: it stops accepting, runs every item already
/// accepted, then returns.</para>
/// </remarks>
public interface IThreadPool : IDisposable, IAsyncDisposable
{
    /// <summary>The number of threads that run work items.</summary>
    int WorkerCount { get; }

    /// <summary>Queues <paramref name="callback"/> to run on the pool.</summary>
    /// <param name="callback">The work to run.</param>
    /// <exception cref="ArgumentNullException"><paramref name="callback"/> is <see langword="null"/>.</exception>
    /// <exception cref="ObjectDisposedException">The pool has been disposed.</exception>
    void Queue(Action callback);

    /// <summary>
    /// Queues <paramref name="callback"/> to run on the pool with <paramref name="state"/> as its argument.
    /// With a cached (static) delegate this path allocates nothing per item.
    /// </summary>
    /// <param name="callback">The work to run.</param>
    /// <param name="state">The argument passed to <paramref name="callback"/>.</param>
    /// <exception cref="ArgumentNullException"><paramref name="callback"/> is <see langword="null"/>.</exception>
    /// <exception cref="ObjectDisposedException">The pool has been disposed.</exception>
    void Queue(Action<object?> callback, object? state);

    /// <summary>Queues a reusable work item; <see cref="IWorkItem.Execute"/> runs once on the pool.</summary>
    /// <param name="workItem">The work to run.</param>
    /// <exception cref="ArgumentNullException"><paramref name="workItem"/> is <see langword="null"/>.</exception>
    /// <exception cref="ObjectDisposedException">The pool has been disposed.</exception>
    void Queue(IWorkItem workItem);

    /// <summary>Queues <paramref name="callback"/>, or returns <see langword="false"/> if the pool no longer accepts work.</summary>
    /// <param name="callback">The work to run.</param>
    /// <returns><see langword="true"/> if the item was accepted and will run exactly once.</returns>
    /// <exception cref="ArgumentNullException"><paramref name="callback"/> is <see langword="null"/>.</exception>
    bool TryQueue(Action callback);

    /// <summary>Queues <paramref name="callback"/> with <paramref name="state"/>, or returns <see langword="false"/> if the pool no longer accepts work.</summary>
    /// <param name="callback">The work to run.</param>
    /// <param name="state">The argument passed to <paramref name="callback"/>.</param>
    /// <returns><see langword="true"/> if the item was accepted and will run exactly once.</returns>
    /// <exception cref="ArgumentNullException"><paramref name="callback"/> is <see langword="null"/>.</exception>
    bool TryQueue(Action<object?> callback, object? state);

    /// <summary>Queues a reusable work item, or returns <see langword="false"/> if the pool no longer accepts work.</summary>
    /// <param name="workItem">The work to run.</param>
    /// <returns><see langword="true"/> if the item was accepted and will run exactly once.</returns>
    /// <exception cref="ArgumentNullException"><paramref name="workItem"/> is <see langword="null"/>.</exception>
    bool TryQueue(IWorkItem workItem);

    /// <summary>Queues <paramref name="callback"/>, to be skipped if <paramref name="cancellationToken"/> is cancelled before it starts.</summary>
    /// <param name="callback">The work to run.</param>
    /// <param name="cancellationToken">Cancels the item if it has not started.</param>
    /// <exception cref="ArgumentNullException"><paramref name="callback"/> is <see langword="null"/>.</exception>
    /// <exception cref="ObjectDisposedException">The pool has been disposed.</exception>
    void Queue(Action callback, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(callback);
        if (cancellationToken.CanBeCanceled)
        {
            Queue(WithToken(callback, null, cancellationToken));
        }
        else
        {
            Queue(callback);
        }
    }

    /// <summary>Queues <paramref name="callback"/> with <paramref name="state"/>, to be skipped if <paramref name="cancellationToken"/> is cancelled before it starts.</summary>
    /// <param name="callback">The work to run.</param>
    /// <param name="state">The argument passed to <paramref name="callback"/>.</param>
    /// <param name="cancellationToken">Cancels the item if it has not started.</param>
    /// <exception cref="ArgumentNullException"><paramref name="callback"/> is <see langword="null"/>.</exception>
    /// <exception cref="ObjectDisposedException">The pool has been disposed.</exception>
    void Queue(Action<object?> callback, object? state, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(callback);
        if (cancellationToken.CanBeCanceled)
        {
            Queue(WithToken(callback, state, cancellationToken));
        }
        else
        {
            Queue(callback, state);
        }
    }

    /// <summary>Queues <paramref name="workItem"/>, to be skipped if <paramref name="cancellationToken"/> is cancelled before it starts.</summary>
    /// <param name="workItem">The work to run.</param>
    /// <param name="cancellationToken">Cancels the item if it has not started.</param>
    /// <exception cref="ArgumentNullException"><paramref name="workItem"/> is <see langword="null"/>.</exception>
    /// <exception cref="ObjectDisposedException">The pool has been disposed.</exception>
    void Queue(IWorkItem workItem, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(workItem);
        if (cancellationToken.CanBeCanceled)
        {
            Queue(WithToken(workItem, null, cancellationToken));
        }
        else
        {
            Queue(workItem);
        }
    }

    /// <summary>Like <see cref="Queue(Action, CancellationToken)"/>, but returns <see langword="false"/> instead of throwing when the pool does not accept the item.</summary>
    /// <param name="callback">The work to run.</param>
    /// <param name="cancellationToken">Cancels the item if it has not started.</param>
    /// <returns><see langword="true"/> if the item was accepted: it will run, or be skipped as cancelled, exactly once.</returns>
    /// <exception cref="ArgumentNullException"><paramref name="callback"/> is <see langword="null"/>.</exception>
    bool TryQueue(Action callback, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(callback);
        return cancellationToken.CanBeCanceled ? TryQueue(WithToken(callback, null, cancellationToken)) : TryQueue(callback);
    }

    /// <summary>Like <see cref="Queue(Action{object}, object, CancellationToken)"/>, but returns <see langword="false"/> instead of throwing when the pool does not accept the item.</summary>
    /// <param name="callback">The work to run.</param>
    /// <param name="state">The argument passed to <paramref name="callback"/>.</param>
    /// <param name="cancellationToken">Cancels the item if it has not started.</param>
    /// <returns><see langword="true"/> if the item was accepted: it will run, or be skipped as cancelled, exactly once.</returns>
    /// <exception cref="ArgumentNullException"><paramref name="callback"/> is <see langword="null"/>.</exception>
    bool TryQueue(Action<object?> callback, object? state, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(callback);
        return cancellationToken.CanBeCanceled ? TryQueue(WithToken(callback, state, cancellationToken)) : TryQueue(callback, state);
    }

    /// <summary>Like <see cref="Queue(IWorkItem, CancellationToken)"/>, but returns <see langword="false"/> instead of throwing when the pool does not accept the item.</summary>
    /// <param name="workItem">The work to run.</param>
    /// <param name="cancellationToken">Cancels the item if it has not started.</param>
    /// <returns><see langword="true"/> if the item was accepted: it will run, or be skipped as cancelled, exactly once.</returns>
    /// <exception cref="ArgumentNullException"><paramref name="workItem"/> is <see langword="null"/>.</exception>
    bool TryQueue(IWorkItem workItem, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(workItem);
        return cancellationToken.CanBeCanceled ? TryQueue(WithToken(workItem, null, cancellationToken)) : TryQueue(workItem);
    }

    /// <summary>
    /// Queues an item written for the built-in pool (<see cref="ThreadPool.UnsafeQueueUserWorkItem(IThreadPoolWorkItem, bool)"/>);
    /// <see cref="IThreadPoolWorkItem.Execute"/> runs once on the pool.
    /// </summary>
    /// <param name="workItem">The work to run.</param>
    /// <param name="preferLocal">
    /// <see langword="true"/> to queue it, when called on one of the pool's workers, where that worker looks first (its
    /// own queue); <see langword="false"/> to queue it where every worker looks, behind what is already there. Called
    /// from another thread, both mean the latter. A pool without per-worker queues ignores it.
    /// </param>
    /// <exception cref="ArgumentNullException"><paramref name="workItem"/> is <see langword="null"/>.</exception>
    /// <exception cref="ObjectDisposedException">The pool has been disposed.</exception>
    void Queue(IThreadPoolWorkItem workItem, bool preferLocal)
    {
        ArgumentNullException.ThrowIfNull(workItem);
        Queue(NativeWorkItems.ExecuteThreadPoolWorkItem, workItem);
    }

    /// <summary>Like <see cref="Queue(IThreadPoolWorkItem, bool)"/>, but returns <see langword="false"/> instead of throwing when the pool does not accept the item.</summary>
    /// <param name="workItem">The work to run.</param>
    /// <param name="preferLocal">Where a worker queues it (see <see cref="Queue(IThreadPoolWorkItem, bool)"/>).</param>
    /// <returns><see langword="true"/> if the item was accepted and will run exactly once.</returns>
    /// <exception cref="ArgumentNullException"><paramref name="workItem"/> is <see langword="null"/>.</exception>
    bool TryQueue(IThreadPoolWorkItem workItem, bool preferLocal)
    {
        ArgumentNullException.ThrowIfNull(workItem);
        return TryQueue(NativeWorkItems.ExecuteThreadPoolWorkItem, workItem);
    }

    /// <summary>
    /// Queues <paramref name="callback"/> with a typed <paramref name="state"/>, as
    /// <see cref="ThreadPool.UnsafeQueueUserWorkItem{TState}(Action{TState}, TState, bool)"/> does.
    /// </summary>
    /// <typeparam name="TState">The type of the state.</typeparam>
    /// <param name="callback">The work to run.</param>
    /// <param name="state">The argument passed to <paramref name="callback"/>.</param>
    /// <param name="preferLocal">Where a worker queues it (see <see cref="Queue(IThreadPoolWorkItem, bool)"/>).</param>
    /// <exception cref="ArgumentNullException"><paramref name="callback"/> is <see langword="null"/>.</exception>
    /// <exception cref="ObjectDisposedException">The pool has been disposed.</exception>
    void Queue<TState>(Action<TState> callback, TState state, bool preferLocal)
    {
        ArgumentNullException.ThrowIfNull(callback);
        Queue(static s => ((StateCall<TState>)s!).Invoke(), new StateCall<TState>(callback, state));
    }

    /// <summary>Like <see cref="Queue{TState}(Action{TState}, TState, bool)"/>, but returns <see langword="false"/> instead of throwing when the pool does not accept the item.</summary>
    /// <typeparam name="TState">The type of the state.</typeparam>
    /// <param name="callback">The work to run.</param>
    /// <param name="state">The argument passed to <paramref name="callback"/>.</param>
    /// <param name="preferLocal">Where a worker queues it (see <see cref="Queue(IThreadPoolWorkItem, bool)"/>).</param>
    /// <returns><see langword="true"/> if the item was accepted and will run exactly once.</returns>
    /// <exception cref="ArgumentNullException"><paramref name="callback"/> is <see langword="null"/>.</exception>
    bool TryQueue<TState>(Action<TState> callback, TState state, bool preferLocal)
    {
        ArgumentNullException.ThrowIfNull(callback);
        return TryQueue(static s => ((StateCall<TState>)s!).Invoke(), new StateCall<TState>(callback, state));
    }

    /// <summary>
    /// A <see cref="System.Threading.Tasks.TaskScheduler"/> whose tasks run as the pool's items
    /// (<c>Task.Factory.StartNew(work, token, options, pool.TaskScheduler)</c>); the <c>Run</c> shapes start their tasks
    /// on it.
    /// </summary>
    /// <remarks>
    /// <see cref="SlimThreadPool"/> and its groups give their own (an <c>await</c> in their tasks resumes there);
    /// <see cref="ManagedThreadPool"/> gives <see cref="TaskScheduler.Default"/>. The default implementation, for a pool
    /// written before this member, queues each task as one of the pool's items and never inlines one.
    /// </remarks>
    TaskScheduler TaskScheduler => Async.ItemTaskScheduler.For(this);

    /// <summary>Runs <paramref name="action"/> on the pool, as <see cref="Task.Run(Action, CancellationToken)"/> runs it on the built-in pool.</summary>
    /// <param name="action">The work.</param>
    /// <param name="cancellationToken">If cancelled before the work starts, the work is skipped and the task ends cancelled.</param>
    /// <returns>A task for the work: faulted with its exception, or cancelled.</returns>
    /// <exception cref="ArgumentNullException"><paramref name="action"/> is <see langword="null"/>.</exception>
    /// <exception cref="ObjectDisposedException">The pool has been disposed (the pools here; with the default
    /// implementation, TPL's <see cref="TaskSchedulerException"/> around the pool's exception).</exception>
    Task Run(Action action, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(action);
        return Task.Factory.StartNew(action, cancellationToken, TaskCreationOptions.DenyChildAttach, TaskScheduler);
    }

    /// <summary>Runs <paramref name="function"/> on the pool and returns its result.</summary>
    /// <typeparam name="T">The result type.</typeparam>
    /// <param name="function">The work.</param>
    /// <param name="cancellationToken">If cancelled before the work starts, the work is skipped and the task ends cancelled.</param>
    /// <returns>A task for the result.</returns>
    /// <exception cref="ArgumentNullException"><paramref name="function"/> is <see langword="null"/>.</exception>
    Task<T> Run<T>(Func<T> function, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(function);
        return Task.Factory.StartNew(function, cancellationToken, TaskCreationOptions.DenyChildAttach, TaskScheduler);
    }

    /// <summary>Runs an async flow on the pool; its continuations run where the pool's <see cref="TaskScheduler"/> sends them.</summary>
    /// <param name="function">The async flow.</param>
    /// <param name="cancellationToken">If cancelled before the work starts, the work is skipped and the task ends cancelled.</param>
    /// <returns>A task that completes with the flow.</returns>
    /// <exception cref="ArgumentNullException"><paramref name="function"/> is <see langword="null"/>.</exception>
    Task Run(Func<Task> function, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(function);
        return Task.Factory.StartNew(function, cancellationToken, TaskCreationOptions.DenyChildAttach, TaskScheduler).Unwrap();
    }

    /// <summary>Runs an async flow with a result on the pool.</summary>
    /// <typeparam name="T">The result type.</typeparam>
    /// <param name="function">The async flow.</param>
    /// <param name="cancellationToken">If cancelled before the work starts, the work is skipped and the task ends cancelled.</param>
    /// <returns>A task that completes with the flow's result.</returns>
    /// <exception cref="ArgumentNullException"><paramref name="function"/> is <see langword="null"/>.</exception>
    Task<T> Run<T>(Func<Task<T>> function, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(function);
        return Task.Factory.StartNew(function, cancellationToken, TaskCreationOptions.DenyChildAttach, TaskScheduler).Unwrap();
    }

    // The default implementations' wrapper: skips the item if the token is cancelled before it starts.
    private static IWorkItem WithToken(object callback, object? state, CancellationToken cancellationToken) =>
        new CancellableWorkItem(callback, state, cancellationToken, static () => { });

    // The default implementations' carrier of a typed callback and its state.
    private sealed class StateCall<TState>(Action<TState> callback, TState state)
    {
        public void Invoke() => callback(state);
    }
}
