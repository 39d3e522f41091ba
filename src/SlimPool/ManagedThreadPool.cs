using SlimPool.Workers;
using System.Diagnostics;
using SlimPool.Diagnostics;
using SlimPool.Queues;

namespace SlimPool;

/// <summary>
/// An <see cref="IThreadPool"/> over the built-in <see cref="ThreadPool"/>, so that benchmarks, tests and
/// applications can run it through the same interface as <see cref="SlimThreadPool"/>.
/// </summary>
/// <remarks>
/// <para>The built-in pool is process-wide and cannot be shut down. Disposing this adapter stops it from
/// accepting work and waits until every item it accepted has run.</para>
/// <para>To honour the <see cref="IThreadPool"/> contract, each item runs inside a try/catch that routes an
/// exception to the callback (the built-in pool would crash the process), and the adapter counts queued and
/// completed items on per-core counters. That is one small object per item, as the built-in pool allocates
/// anyway, and two uncontended atomic adds.</para>
/// </remarks>
public sealed class ManagedThreadPool : ThreadPoolBase, IThreadPool
{
    // The adapter whose item the current thread is running, if any: Dispose called from inside an item must
    // not wait for that item.
    [ThreadStatic]
    private static ManagedThreadPool? t_running;

    private readonly bool _flowExecutionContext;
    private readonly WorkItemRunner _reporter; // reports exceptions as SlimThreadPool does (the count is unused here)
    private readonly StripedCounter _queued = new();
    private readonly StripedCounter _completed = new();
    private readonly Action _onItemSkipped;
    private int _disposed;
    private long _cancelledCount;

    /// <summary>Queues with <see cref="ThreadPool.QueueUserWorkItem(WaitCallback, object?)"/>-style calls, which flow <see cref="ExecutionContext"/>.</summary>
    public ManagedThreadPool()
        : this(flowExecutionContext: true)
    {
    }

    /// <summary>Creates the adapter.</summary>
    /// <param name="flowExecutionContext">
    /// <see langword="true"/> to queue with <c>ThreadPool.QueueUserWorkItem</c> (flows
    /// <see cref="ExecutionContext"/>); <see langword="false"/> to use <c>ThreadPool.UnsafeQueueUserWorkItem</c>.
    /// </param>
    /// <param name="unhandledException">
    /// Called with each exception a work item throws; by default exceptions are written to <see cref="Trace"/>.
    /// </param>
    public ManagedThreadPool(bool flowExecutionContext, Action<Exception>? unhandledException = null)
    {
        _flowExecutionContext = flowExecutionContext;
        _reporter = new WorkItemRunner(unhandledException, source: nameof(ManagedThreadPool));
        _onItemSkipped = () => Interlocked.Increment(ref _cancelledCount);
    }

    /// <summary>Whether items carry their producer's <see cref="ExecutionContext"/> (the constructor's <c>flowExecutionContext</c>).</summary>
    internal bool FlowsExecutionContext => _flowExecutionContext;

    /// <summary>The built-in pool's current number of threads (<see cref="ThreadPool.ThreadCount"/>).</summary>
    public int WorkerCount => ThreadPool.ThreadCount;

    /// <summary><see cref="System.Threading.Tasks.TaskScheduler.Default"/>: the built-in pool's own scheduler.</summary>
    public TaskScheduler TaskScheduler => TaskScheduler.Default;

    /// <summary>Runs <paramref name="action"/> with <see cref="Task.Run(Action, CancellationToken)"/>.</summary>
    /// <param name="action">The work.</param>
    /// <param name="cancellationToken">If cancelled before the work starts, the work is skipped and the task ends cancelled.</param>
    /// <returns>The task <see cref="Task.Run(Action, CancellationToken)"/> returns.</returns>
    public Task Run(Action action, CancellationToken cancellationToken = default) => Task.Run(action, cancellationToken);

    /// <summary>Runs <paramref name="function"/> with <see cref="Task.Run{TResult}(Func{TResult}, CancellationToken)"/>.</summary>
    /// <typeparam name="T">The result type.</typeparam>
    /// <param name="function">The work.</param>
    /// <param name="cancellationToken">If cancelled before the work starts, the work is skipped and the task ends cancelled.</param>
    /// <returns>The task for the result.</returns>
    public Task<T> Run<T>(Func<T> function, CancellationToken cancellationToken = default) => Task.Run(function, cancellationToken);

    /// <summary>Runs an async flow with <see cref="Task.Run(Func{Task}, CancellationToken)"/>.</summary>
    /// <param name="function">The async flow.</param>
    /// <param name="cancellationToken">If cancelled before the work starts, the work is skipped and the task ends cancelled.</param>
    /// <returns>A task that completes with the flow.</returns>
    public Task Run(Func<Task> function, CancellationToken cancellationToken = default) => Task.Run(function, cancellationToken);

    /// <summary>Runs an async flow with a result with <see cref="Task.Run{TResult}(Func{Task{TResult}}, CancellationToken)"/>.</summary>
    /// <typeparam name="T">The result type.</typeparam>
    /// <param name="function">The async flow.</param>
    /// <param name="cancellationToken">If cancelled before the work starts, the work is skipped and the task ends cancelled.</param>
    /// <returns>A task that completes with the flow's result.</returns>
    public Task<T> Run<T>(Func<Task<T>> function, CancellationToken cancellationToken = default) => Task.Run(function, cancellationToken);

    /// <summary>The number of items skipped because their cancellation token was cancelled before they started.</summary>
    public long CancelledWorkItemCount => Interlocked.Read(ref _cancelledCount);

    private protected override void QueueItem(object callback, object? state, CancellationToken cancellationToken) =>
        QueueOrThrow(callback, state, cancellationToken);

    private protected override bool TryQueueItem(object callback, object? state, CancellationToken cancellationToken) =>
        TryQueueCore(callback, state, cancellationToken);

    private protected override void QueueItem(object callback, object? state, bool preferLocal) =>
        QueueOrThrow(callback, state, CancellationToken.None, preferLocal);

    private protected override bool TryQueueItem(object callback, object? state, bool preferLocal) =>
        TryQueueCore(callback, state, CancellationToken.None, preferLocal);

    /// <summary>Stops accepting work and waits until every accepted item has run. Idempotent.</summary>
    public void Dispose()
    {
        StopAccepting();
        var spinner = default(SpinWait);
        while (!IsDrained())
        {
            spinner.SpinOnce(sleep1Threshold: 20);
        }
    }

    /// <summary>Like <see cref="Dispose"/>, waiting asynchronously.</summary>
    /// <returns>A task that completes when every accepted item has run.</returns>
    public async ValueTask DisposeAsync()
    {
        StopAccepting();
        while (!IsDrained())
        {
            await Task.Delay(1).ConfigureAwait(false);
        }
    }

    private void StopAccepting()
    {
        Volatile.Write(ref _disposed, 1);
        Interlocked.MemoryBarrier(); // pairs with TryQueueCore: count, fence, then read _disposed
    }

    private bool IsDrained()
    {
        // Completed first, then queued: a cell's queued count never drops below its accepted items, so the
        // difference never undercounts what is outstanding. The item running this call (if any) cannot finish
        // before it returns, so it does not count.
        long completed = _completed.Sum();
        long outstanding = _queued.Sum() - completed;
        return outstanding <= (t_running == this ? 1 : 0);
    }

    private static void ThrowDisposed() =>
        throw new ObjectDisposedException(nameof(ManagedThreadPool), "The adapter has been disposed and no longer accepts work.");

    private void QueueOrThrow(object callback, object? state, CancellationToken cancellationToken, bool preferLocal = false)
    {
        if (!TryQueueCore(callback, state, cancellationToken, preferLocal))
        {
            ThrowDisposed();
        }
    }

    private bool TryQueueCore(object callback, object? state, CancellationToken cancellationToken, bool preferLocal = false)
    {
        if (Volatile.Read(ref _disposed) != 0)
        {
            return false;
        }

        // Count first (an interlocked add: a full fence), then look at _disposed again: Dispose either sees
        // our count and waits for the item, or we see Dispose and undo the count.
        int cell = _queued.Increment();
        if (Volatile.Read(ref _disposed) != 0)
        {
            _queued.Decrement(cell);
            return false;
        }

        if (cancellationToken.CanBeCanceled)
        {
            callback = new CancellableWorkItem(callback, state, cancellationToken, _onItemSkipped);
            state = null;
        }

        var work = new WorkState(this, callback, state);
        if (_flowExecutionContext)
        {
            ThreadPool.QueueUserWorkItem(static w => w.Run(), work, preferLocal);
        }
        else
        {
            ThreadPool.UnsafeQueueUserWorkItem(static w => w.Run(), work, preferLocal);
        }

        return true;
    }

    private void ReportUnhandled(Exception exception) => _reporter.ReportUnhandled(exception);

    // A struct: the built-in pool boxes it into its own per-item object, so the adapter adds no allocation.
    private readonly struct WorkState(ManagedThreadPool pool, object callback, object? state)
    {
        public void Run()
        {
            ManagedThreadPool? outer = t_running;
            t_running = pool;
            try
            {
                new QueuedWorkItem(callback, state, context: null).Invoke();
            }
            catch (Exception exception)
            {
                pool.ReportUnhandled(exception);
            }
            finally
            {
                t_running = outer;
                pool._completed.Increment();
            }
        }
    }
}
