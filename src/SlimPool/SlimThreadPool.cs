using System.Diagnostics;
using SlimPool.Async;
using SlimPool.Queues;
using SlimPool.Scheduling;
using SlimPool.Workers;

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
    private readonly IFencedEnqueue? _fencedQueue; // _queue, when its enqueue can end with a full fence
    private readonly IdleWait _idleWait;
    private readonly WorkerSet _workerSet;
    private readonly int _workerCount;
    private readonly string _name;
    private readonly bool _flowExecutionContext;
    private readonly Action<Exception>? _unhandledException;
    private readonly Action<int>? _onThreadStart;
    private readonly Action<int>? _onThreadExit;
    private readonly ThreadPriority _threadPriority;
    private readonly bool _useBackgroundThreads;
    private readonly TaskCompletionSource _stopped = new(TaskCreationOptions.RunContinuationsAsynchronously);

    // 0 while accepting, 1 once shutdown began. Written once by Interlocked.Exchange; read by every producer.
    private int _shutdown;
    // 1 once an abandoning shutdown was asked for: workers stop taking items. Written once; read by each worker
    // before each item (a read of a line nobody writes: it stays in every core's cache).
    private int _abandon;
    private long _unhandledExceptionCount;
    private long _cancelledCount;
    // Back-pressure (BoundedCapacity); null when unbounded, which costs the hot paths one null test.
    private readonly CapacityGate? _gate;
    private readonly Action _onItemSkipped;

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
        _fencedQueue = _queue as IFencedEnqueue;
        int maxWorkers = options.EffectiveMaxWorkers;
        _idleWait = options.IdleWait switch
        {
            IdleWaitKind.AutoResetEvent => new AutoResetEventIdleWait(_queue),
            _ => new SpinThenParkIdleWait(_queue, workerCount, Environment.ProcessorCount > 1 ? DefaultSpinIterations : 0),
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
        _spareIdleTimeoutMs = SlimThreadPoolOptions.ToWholeMilliseconds(options.SpareWorkerIdleTimeout);
        _gate = options.BoundedCapacity is int capacity ? new CapacityGate(capacity) : null;
        _onItemSkipped = () => Interlocked.Increment(ref _cancelledCount);
        (_meter, _queueWait, _recordQueueWait) = CreateMetrics();
        if (_queue is WorkStealingWorkQueue workStealing)
        {
            workStealing.OnRefilled = OnRefilled;
        }

        _workerSet = new WorkerSet(workerCount, maxWorkers, NewWorkerThread);
        _workerSet.StartPermanentWorkers();

        if (options.StarvationTimeout != Timeout.InfiniteTimeSpan)
        {
            _guard = new StarvationGuard(_workerSet, _queue, SlimThreadPoolOptions.ToWholeMilliseconds(options.StarvationTimeout), $"{_name} guard");
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
    public int LiveWorkerCount => _workerSet.LiveCount;

    /// <summary>The approximate number of items queued and not yet started.</summary>
    public int PendingWorkItemCount => _queue.Count;

    /// <summary>The number of exceptions work items have thrown (each was reported once).</summary>
    public long UnhandledExceptionCount => Interlocked.Read(ref _unhandledExceptionCount);

    /// <summary>The number of items skipped because their cancellation token was cancelled before they started.</summary>
    public long CancelledWorkItemCount => Interlocked.Read(ref _cancelledCount);

    /// <summary>The number of workers running items now (blocked ones included).</summary>
    public int BusyWorkerCount => _workerSet.BusyCount();

    /// <summary>The number of items the workers have finished (those that threw and those skipped as cancelled included).</summary>
    public long CompletedWorkItemCount => _workerSet.Progress();

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

    private static void ThrowDisposed() => throw NewDisposedException();

    private static ObjectDisposedException NewDisposedException() =>
        new(nameof(SlimThreadPool), "The pool has been disposed and no longer accepts work.");

    /// <summary>Whether the calling thread is one of this pool's workers.</summary>
    internal bool IsOwnWorker => t_currentPool == this;

    /// <summary>Whether the pool has stopped accepting work.</summary>
    internal bool IsShutDown => Volatile.Read(ref _shutdown) != 0;

    private void WorkerMain(object? boxedIndex)
    {
        int index = (int)boxedIndex!;
        WorkerState state = _workerSet.StateOf(index);
        Thread thread = Thread.CurrentThread;
        string threadName = thread.Name!;
        t_currentPool = this;
        var blocking = t_blocking = new WorkerBlockingState(_workerSet);
        InvokeThreadHook(_onThreadStart, index);

        // Captured after the start hook, so what the hook set (a culture, an AsyncLocal) is every item's baseline.
        ExecutionContext? cleanContext = ExecutionContext.Capture();

        // Code running on the pool that awaits resumes on the pool (see SlimSynchronizationContext).
        SynchronizationContext.SetSynchronizationContext(_synchronizationContext);
        bool spare = index >= _workerCount;
        int idleTimeout = spare ? _spareIdleTimeoutMs : Timeout.Infinite;
        _queue.AttachWorker(index);
        _idleWait.OnWorkerStarted(index);
        bool busy = false;
        bool retired = false;
        bool lastOut = false;
        try
        {
            while (Volatile.Read(ref _abandon) == 0)
            {
                if (!busy)
                {
                    // Busy before the look, with a full fence, so the item is never out of the queue while this
                    // worker reads as idle (WaitForIdleAsync reads the queue, then the busy flags).
                    state.SetBusy(true);
                    busy = true;
                }

                if (_queue.TryDequeue(out QueuedWorkItem item))
                {
                    _gate?.Release();
                    _idleWait.OnWorkTaken(index);
                    Execute(item, cleanContext, _synchronizationContext);
                    RestoreAfterItem(thread, threadName, blocking);

                    // Progress for the starvation guard and the metrics: written only by this worker.
                    state.OnItemCompleted();
                    continue;
                }

                // Idle. The exchange is a full fence before the read of the waiter count: it pairs with
                // WaitForIdleAsync's increment of that count before its own look (see CheckIdle).
                state.SetBusy(false);
                busy = false;
                if (Volatile.Read(ref _idleWaiterCount) != 0)
                {
                    CheckIdle();
                }

                // An item may have made this thread a foreground thread; an idle foreground worker would keep the
                // process alive (read here, not after every item: the read costs a few nanoseconds).
                if (thread.IsBackground != _useBackgroundThreads)
                {
                    thread.IsBackground = _useBackgroundThreads;
                }

                if (_idleWait.IsStopping)
                {
                    // IsStopping was read before this last look, so the look sees every item whose producer
                    // saw the pool still open (see BeginShutdown). An item seen goes round the loop again.
                    if (!_queue.IsEmpty)
                    {
                        continue;
                    }

                    break;
                }

                if (!_idleWait.WaitForWork(index, idleTimeout))
                {
                    // A spare's wait timed out and it has left the idle state with a full fence. Look once more:
                    // an item published while it was leaving may have been meant for it (its producer saw it idle,
                    // and the wake found nobody). Then leave only if no blocked worker still needs it covered.
                    if (_queue.IsEmpty && _workerSet.TryRetire(out lastOut))
                    {
                        retired = true;
                        break;
                    }
                }
            }
        }
        finally
        {
            state.ClearBusy();
            InvokeThreadHook(_onThreadExit, index);
            _queue.DetachWorker(index);
            _idleWait.OnWorkerExiting(index);
            t_currentPool = null;
            t_blocking = null;
            if (retired)
            {
                _workerSet.Release(index); // the slot takes the next spare; a worker exiting on shutdown keeps it (Join)
            }

            if (retired ? lastOut : _workerSet.OnExited())
            {
                _stopped.TrySetResult();
            }
        }
    }

    // After each item: what an item may have changed on its thread and that the built-in pool resets too (its name
    // and priority), and a blocking scope it left open (disposed on another thread after an await, or never).
    private void RestoreAfterItem(Thread thread, string threadName, WorkerBlockingState blocking)
    {
        if (!ReferenceEquals(thread.Name, threadName))
        {
            thread.Name = threadName;
        }

        if (thread.Priority != _threadPriority)
        {
            thread.Priority = _threadPriority;
        }

        blocking.EndOfItem();
    }

    // A worker moved items from the shared queue into its own deque (see WorkStealingWorkQueue.RefillFrom): the same
    // fence, wake check and guard arming as after a publish, so a sibling or the guard that parked while the items
    // were in transit (their re-check saw neither place holding them) is woken.
    private void OnRefilled()
    {
        Interlocked.MemoryBarrier();
        _idleWait.OnWorkQueued();
        _guard?.OnQueued();
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
