using System.Diagnostics;
using SlimPool.Async;
using SlimPool.Queues;
using SlimPool.Scheduling;

namespace SlimPool;

/// <summary>
/// A thread pool for tiny, small and medium CPU-bound work items: a fixed set of dedicated worker threads
/// (one per core by default) over a pluggable <see cref="IWorkQueue"/>, with an idle protocol that never
/// loses a wake-up and rarely makes the producer pay for one.
/// </summary>
/// <remarks>
/// <para>Pools are isolated from each other and from <see cref="ThreadPool"/>: their own threads, queue and
/// settings. Workers are background threads named <c>"{Name} #{n}"</c>, started without the
/// creator's <see cref="ExecutionContext"/>.</para>
/// <para>Dispose the pool: its workers hold it alive. <see cref="Dispose"/> and <see cref="DisposeAsync"/>
/// stop accepting work, run everything already accepted, and wait for the workers to exit; called on one of
/// the pool's own workers they run what is left on that worker and return without waiting for it to exit.</para>
/// </remarks>
public sealed partial class SlimThreadPool : IThreadPool
{
    // The pool whose worker the current thread is, if any.
    [ThreadStatic]
    private static SlimThreadPool? t_currentPool;

    private readonly IWorkQueue _queue;
    private readonly IdleWait _idleWait;
    // Slots 0..WorkerCount-1 hold the permanent workers; the rest hold spare workers while they live. Written
    // under _spareLock (and once in the constructor); a retiring spare clears its slot.
    private readonly Thread?[] _workers;
    private readonly int _workerCount;
    private readonly string _name;
    private readonly Lock _spareLock = new();
    private readonly bool _flowExecutionContext;
    private readonly Action<Exception>? _unhandledException;
    private readonly Action<int>? _onThreadStart;
    private readonly Action<int>? _onThreadExit;
    private readonly ThreadPriority _threadPriority;
    private readonly bool _useBackgroundThreads;
    private readonly TaskCompletionSource _stopped = new(TaskCreationOptions.RunContinuationsAsynchronously);

    // 0 while accepting, 1 once shutdown began. Written once by Interlocked.Exchange; read by every producer.
    private int _shutdown;
    private int _liveWorkers;
    private long _unhandledExceptionCount;

    /// <summary>Creates a pool with the default <see cref="SlimThreadPoolOptions"/>: one worker per core.</summary>
    public SlimThreadPool()
        : this(new SlimThreadPoolOptions())
    {
    }

    /// <summary>Creates a pool with the given options and starts its workers.</summary>
    /// <param name="options">The settings; copied, so later changes do not affect the pool.</param>
    /// <exception cref="ArgumentNullException"><paramref name="options"/> is <see langword="null"/>.</exception>
    /// <exception cref="ArgumentOutOfRangeException">An option is out of range; the message names it.</exception>
    /// <exception cref="InvalidOperationException"><see cref="SlimThreadPoolOptions.QueueFactory"/> returned <see langword="null"/>.</exception>
    public SlimThreadPool(SlimThreadPoolOptions options)
    {
        ArgumentNullException.ThrowIfNull(options);
        options.Validate();

        int workerCount = options.WorkerCount;
        _queue = CreateQueue(options);
        int maxWorkers = options.EffectiveMaxWorkers;
        _idleWait = options.IdleWait switch
        {
            IdleWaitKind.AutoResetEvent => new AutoResetEventIdleWait(_queue),
            _ => new SpinThenParkIdleWait(_queue, maxWorkers, Environment.ProcessorCount > 1 ? DefaultSpinIterations : 0),
        };
        _flowExecutionContext = options.FlowExecutionContext;
        _unhandledException = options.UnhandledException;
        _onThreadStart = options.OnThreadStart;
        _onThreadExit = options.OnThreadExit;
        _threadPriority = options.ThreadPriority;
        _useBackgroundThreads = options.UseBackgroundThreads;
        _synchronizationContext = new SlimSynchronizationContext(this);
        _taskScheduler = new SlimTaskScheduler(this);

        _workerCount = workerCount;
        _name = options.Name;
        _spareIdleTimeoutMs = (int)options.SpareWorkerIdleTimeout.TotalMilliseconds;
        _progress = new PaddedLong[maxWorkers];
        _workers = new Thread?[maxWorkers];
        _liveWorkers = workerCount;
        for (int i = 0; i < workerCount; i++)
        {
            _workers[i] = NewWorkerThread(i);
        }

        for (int i = 0; i < workerCount; i++)
        {
            _workers[i]!.UnsafeStart(i); // no ExecutionContext leaks from the creator into the workers
        }

        if (options.StarvationTimeout != Timeout.InfiniteTimeSpan)
        {
            _guard = new StarvationGuard(this, _queue, (int)options.StarvationTimeout.TotalMilliseconds, $"{_name} guard");
        }
    }

    /// <summary>How many times an idle worker looks at the queue, about a microsecond apart, before it parks.</summary>
    internal const int DefaultSpinIterations = 50;

    /// <summary>The pool's name (<see cref="SlimThreadPoolOptions.Name"/>), used in thread names and metric tags.</summary>
    public string Name => _name;

    /// <summary>
    /// The number of permanent workers (<see cref="SlimThreadPoolOptions.WorkerCount"/>). Spare workers that cover
    /// for blocked ones come and go on top of it; <see cref="LiveWorkerCount"/> counts them too.
    /// </summary>
    public int WorkerCount => _workerCount;

    /// <summary>The number of worker threads alive now: the permanent ones plus any spare workers.</summary>
    public int LiveWorkerCount => Volatile.Read(ref _liveWorkers);

    /// <summary>The approximate number of items queued and not yet started.</summary>
    public int PendingWorkItemCount => _queue.Count;

    /// <summary>The number of exceptions work items have thrown (each was reported once).</summary>
    public long UnhandledExceptionCount => Interlocked.Read(ref _unhandledExceptionCount);

    /// <inheritdoc />
    public void Queue(Action callback)
    {
        ArgumentNullException.ThrowIfNull(callback);
        if (!TryEnqueue(callback, null))
        {
            ThrowDisposed();
        }
    }

    /// <inheritdoc />
    public void Queue(Action<object?> callback, object? state)
    {
        ArgumentNullException.ThrowIfNull(callback);
        if (!TryEnqueue(callback, state))
        {
            ThrowDisposed();
        }
    }

    /// <inheritdoc />
    public void Queue(IWorkItem workItem)
    {
        ArgumentNullException.ThrowIfNull(workItem);
        if (!TryEnqueue(workItem, null))
        {
            ThrowDisposed();
        }
    }

    /// <inheritdoc />
    public bool TryQueue(Action callback)
    {
        ArgumentNullException.ThrowIfNull(callback);
        return TryEnqueue(callback, null);
    }

    /// <inheritdoc />
    public bool TryQueue(Action<object?> callback, object? state)
    {
        ArgumentNullException.ThrowIfNull(callback);
        return TryEnqueue(callback, state);
    }

    /// <inheritdoc />
    public bool TryQueue(IWorkItem workItem)
    {
        ArgumentNullException.ThrowIfNull(workItem);
        return TryEnqueue(workItem, null);
    }

    /// <summary>
    /// Stops accepting work, runs every accepted item, and waits for the workers to exit. Idempotent. On one of
    /// this pool's workers it runs the remaining items on that worker and returns without waiting for it.
    /// </summary>
    public void Dispose()
    {
        BeginShutdown();
        if (t_currentPool == this)
        {
            RunUntilEmpty();
            return;
        }

        _stopped.Task.Wait();
        JoinThreads();
        RunUntilEmpty();
    }

    /// <summary>Like <see cref="Dispose"/>, but waits for the workers asynchronously.</summary>
    /// <returns>A task that completes when every accepted item has run and the workers have exited.</returns>
    public async ValueTask DisposeAsync()
    {
        BeginShutdown();
        if (t_currentPool == this)
        {
            RunUntilEmpty();
            return;
        }

        await _stopped.Task.ConfigureAwait(false);
        JoinThreads();
        RunUntilEmpty();
    }

    private static IWorkQueue CreateQueue(SlimThreadPoolOptions options)
    {
        if (options.QueueFactory is { } factory)
        {
            return factory() ?? throw new InvalidOperationException(
                $"{nameof(SlimThreadPoolOptions)}.{nameof(SlimThreadPoolOptions.QueueFactory)} returned null; it must return a new {nameof(IWorkQueue)}.");
        }

        return options.Queue switch
        {
            WorkQueueKind.Locked => new LockedWorkQueue(),
            WorkQueueKind.LockFree => new LockFreeWorkQueue(),
            _ => new WorkStealingWorkQueue(),
        };
    }

    private static void ThrowDisposed() =>
        throw new ObjectDisposedException(nameof(SlimThreadPool), "The pool has been disposed and no longer accepts work.");

    /// <summary>Whether the calling thread is one of this pool's workers.</summary>
    internal bool IsOwnWorker => t_currentPool == this;

    /// <summary>Whether the pool has stopped accepting work.</summary>
    internal bool IsShutDown => Volatile.Read(ref _shutdown) != 0;

    /// <summary>
    /// Queues any callback <see cref="QueuedWorkItem"/> can dispatch (Action, Action&lt;object?&gt;,
    /// SendOrPostCallback with its state, IWorkItem); false once the pool no longer accepts work.
    /// </summary>
    internal bool TryEnqueue(object callback, object? state)
    {
        if (Volatile.Read(ref _shutdown) != 0)
        {
            return false;
        }

        ExecutionContext? context = _flowExecutionContext ? ExecutionContext.Capture() : null;
        _queue.Enqueue(new QueuedWorkItem(callback, state, context));

        // Full fence: the item is published before we read the idle state (pairs with the worker's announce,
        // see IdleWait) and before we read _shutdown again (pairs with BeginShutdown's Exchange).
        Interlocked.MemoryBarrier();

        if (Volatile.Read(ref _shutdown) != 0)
        {
            OnQueuedDuringShutdown();
            return true;
        }

        // One read of the idle state serves both the wake decision and the guard's "every worker busy" check.
        if (_idleWait.OnWorkQueued() && _guard is not null)
        {
            _guard.OnQueuedWhileAllBusy();
        }

        return true;
    }

    // Our item was accepted (we saw the pool open) but shutdown began before we could wake anyone. The
    // workers may already have made their last look at the queue, so make sure the item runs: a worker of this
    // pool keeps draining until it sees the queue empty, so it needs nothing more; any other thread runs
    // what is left itself. If the item was seen by a worker, it simply is no longer there.
    private void OnQueuedDuringShutdown()
    {
        if (t_currentPool == this)
        {
            return;
        }

        RunUntilEmpty();
    }

    private void BeginShutdown()
    {
        // The Exchange is a full fence: a producer that then reads _shutdown == 0 after publishing its item
        // published it before this point, so the workers' final look at the queue (made after they see
        // IsStopping, which Stop sets after this) finds it.
        // Under _spareLock, so that no spare worker starts once shutdown has begun (see TryStartSpare).
        lock (_spareLock)
        {
            if (Interlocked.Exchange(ref _shutdown, 1) != 0)
            {
                return;
            }
        }

        _idleWait.Stop();
        _guard?.Stop();
    }

    private void WorkerMain(object? boxedIndex)
    {
        int index = (int)boxedIndex!;
        t_currentPool = this;
        InvokeThreadHook(_onThreadStart, index);

        // Captured after the start hook, so what the hook set (a culture, an AsyncLocal) is every item's baseline.
        ExecutionContext? cleanContext = ExecutionContext.Capture();

        // Code running on the pool that awaits resumes on the pool (see SlimSynchronizationContext).
        SynchronizationContext.SetSynchronizationContext(_synchronizationContext);
        bool spare = index >= _workerCount;
        int idleTimeout = spare ? _spareIdleTimeoutMs : Timeout.Infinite;
        _queue.AttachWorker(index);
        _idleWait.OnWorkerStarted(index);
        try
        {
            while (true)
            {
                if (_queue.TryDequeue(out QueuedWorkItem item))
                {
                    _idleWait.OnWorkTaken(index);
                    Execute(item, cleanContext, _synchronizationContext);

                    // Progress for the starvation guard: written only by this worker, read by the guard.
                    Volatile.Write(ref _progress[index].Value, _progress[index].Value + 1);
                    continue;
                }

                if (_idleWait.IsStopping)
                {
                    // IsStopping was read before this last look, so the look sees every item whose producer
                    // saw the pool still open (see BeginShutdown).
                    if (_queue.TryDequeue(out item))
                    {
                        Execute(item, cleanContext, _synchronizationContext);
                        continue;
                    }

                    break;
                }

                if (!_idleWait.WaitForWork(index, idleTimeout))
                {
                    break; // a spare with nothing to do for SpareWorkerIdleTimeout retires
                }
            }
        }
        finally
        {
            InvokeThreadHook(_onThreadExit, index);
            _queue.DetachWorker(index);
            _idleWait.OnWorkerExiting(index);
            t_currentPool = null;
            if (spare)
            {
                lock (_spareLock)
                {
                    _workers[index] = null;
                }
            }

            if (Interlocked.Decrement(ref _liveWorkers) == 0)
            {
                _stopped.TrySetResult();
            }
        }
    }

    // Runs whatever is queued on the calling thread (shutdown paths only), restoring the caller's ambient
    // contexts after each item.
    private void RunUntilEmpty()
    {
        ExecutionContext? callerContext = ExecutionContext.Capture();
        SynchronizationContext? callerSyncContext = SynchronizationContext.Current;
        while (_queue.TryDequeue(out QueuedWorkItem item))
        {
            Execute(item, callerContext, callerSyncContext);
        }
    }

    private void Execute(in QueuedWorkItem item, ExecutionContext? restoreContext, SynchronizationContext? restoreSyncContext)
    {
        try
        {
            if (item.Context is { } context)
            {
                ExecutionContext.Restore(context);
            }

            item.Invoke();
        }
        catch (Exception exception)
        {
            ReportUnhandled(exception);
        }

        // Leave nothing behind for the next item: an AsyncLocal value, a suppressed flow or a
        // SynchronizationContext set by this item (or by the context it flowed in with).
        if (restoreContext is not null && ExecutionContext.Capture() != restoreContext)
        {
            ExecutionContext.Restore(restoreContext);
        }

        if (SynchronizationContext.Current != restoreSyncContext)
        {
            SynchronizationContext.SetSynchronizationContext(restoreSyncContext);
        }
    }

    private void InvokeThreadHook(Action<int>? hook, int index)
    {
        if (hook is null)
        {
            return;
        }

        try
        {
            hook(index);
        }
        catch (Exception exception)
        {
            ReportUnhandled(exception);
        }
    }

    private void ReportUnhandled(Exception exception)
    {
        Interlocked.Increment(ref _unhandledExceptionCount);
        Action<Exception>? handler = _unhandledException;
        if (handler is null)
        {
            Trace.TraceError($"SlimPool: a work item threw an unhandled exception: {exception}");
            return;
        }

        try
        {
            handler(exception);
        }
        catch (Exception handlerException)
        {
            Trace.TraceError($"SlimPool: the UnhandledException callback threw: {handlerException}; the item's exception was: {exception}");
        }
    }
}
