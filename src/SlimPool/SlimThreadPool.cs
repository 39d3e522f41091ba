using System.Diagnostics.Metrics;
using SlimPool.Async;
using SlimPool.Diagnostics;
using SlimPool.Lifecycle;
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
/// <para>This type is the facade: each mechanism is an internal type that owns its state and states its invariants
/// (the queue; the publish protocol, <c>Scheduling/Publisher</c>; the idle wait, <c>Scheduling/</c>; the workers, spares and capacity, <c>Workers/WorkerSet</c>; the
/// worker loop, <c>Workers/WorkerLoop</c>; the starvation guard; shutdown, <c>Lifecycle/ShutdownCoordinator</c>;
/// idleness, <c>Workers/IdleTracker</c>; back-pressure, <c>Scheduling/CapacityGate</c>). The facade checks and
/// accepts items (arguments, the bound) and wires the owners together; the publisher takes each accepted item from
/// there.</para>
/// </remarks>
public sealed partial class SlimThreadPool : ThreadPoolBase, IThreadPool, ISchedulingTarget
{
    /// <summary>How many times an idle worker looks at the queue, about a microsecond apart, before it parks.</summary>
    internal const int DefaultSpinIterations = 50;

    private readonly IWorkQueue _queue;
    private readonly IdleWait _idleWait;
    private readonly Publisher _publisher;
    private readonly WorkerSet _workerSet;
    private readonly WorkerLoop _loop;
    private readonly WorkItemRunner _runner;
    private readonly ShutdownCoordinator _shutdown;
    private readonly IdleTracker _idle;
    private readonly LongRunningTasks _longRunning = new();
    private readonly StarvationGuard? _guard;
    private readonly SlowItemWatch? _slowItems;
    private readonly CapacityGate? _gate; // back-pressure (BoundedCapacity); null when unbounded: one null test
    private readonly int _workerCount;
    private readonly string _name;
    private readonly Action _onItemSkipped;
    private long _cancelledCount;
    private long _completedOffWorkers; // user items run on threads that are not this pool's workers (shutdown, inline)

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

        _workerCount = options.WorkerCount;
        _name = options.Name;
        _queue = CreateQueue(options);
        _idleWait = options.IdleWait switch
        {
            IdleWaitKind.AutoResetEvent => new AutoResetEventIdleWait(_queue),
            _ => new SpinThenParkIdleWait(_queue, _workerCount, Environment.ProcessorCount > 1 ? DefaultSpinIterations : 0),
        };
        _runner = new WorkItemRunner(options.UnhandledException);
        _synchronizationContext = new SlimSynchronizationContext(this);
        _taskScheduler = new SlimTaskScheduler(this);
        _pipeScheduler = new SlimPipeScheduler(this);
        _gate = options.BoundedCapacity is int capacity ? new CapacityGate(capacity) : null;
        _onItemSkipped = () => Interlocked.Increment(ref _cancelledCount);

        // The thread factory runs only from StartPermanentWorkers on, once _loop is set.
        _workerSet = new WorkerSet(_workerCount, options.EffectiveMaxWorkers, index => _loop!.NewThread(index), _queue, () => _shutdown!.OnWorkersExited(), () => _publisher!.Lanes);
        if (options.StarvationTimeout != Timeout.InfiniteTimeSpan)
        {
            _guard = new StarvationGuard(_workerSet, _queue, SlimThreadPoolOptions.ToWholeMilliseconds(options.StarvationTimeout), _name);
        }

        if (options.SlowItemThreshold != Timeout.InfiniteTimeSpan)
        {
            _slowItems = new SlowItemWatch(_workerSet, options.SlowItemThreshold, _name);
        }

        // What the shutdown runs itself runs as the workers run their items: under the pool's context, or none.
        SynchronizationContext? workersContext = options.UseSynchronizationContext ? _synchronizationContext : null;
        _shutdown = new ShutdownCoordinator(_queue, _runner, _workerSet, _idleWait, _guard, _gate, OnShutdownFinished, HandBackGroupItems, () => _publisher!.Lanes, workersContext, _longRunning);
        _idle = new IdleTracker(_queue, _workerSet, _shutdown, _longRunning, () => _publisher!.Lanes);
        (_meter, Histogram<double> queueWait, Action<TimeSpan> recordQueueWait, _durations) = CreateMetrics();
        _publisher = new Publisher(this, _queue, _idleWait, _guard, _shutdown, _gate, (queueWait, recordQueueWait), options.LowPriorityMaxDelay, namingItems: _slowItems is not null, options.FlowExecutionContext);
        _loop = new WorkerLoop(this, options, _publisher, _queue, _gate, _idleWait, _workerSet, _runner, _shutdown, _idle, _synchronizationContext);
        if (_queue is WorkStealingWorkQueue workStealing)
        {
            workStealing.OnRefilled = _publisher.OnRefilled;
        }

        _workerSet.StartPermanentWorkers();
    }

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
    public long UnhandledExceptionCount => _runner.UnhandledExceptionCount;

    /// <summary>
    /// The number of items the pool skipped because their cancellation token was cancelled before they started (an item
    /// handed back by an abandon and skipped by <see cref="AbandonedWorkItem.Run"/> is not the pool's and not counted).
    /// </summary>
    public long CancelledWorkItemCount => Interlocked.Read(ref _cancelledCount);

    /// <summary>The number of workers running items now (blocked ones included).</summary>
    public int BusyWorkerCount => _workerSet.BusyCount();

    /// <summary>
    /// The number of items the pool has finished, each once: the pool's own and its groups' items, those that threw and
    /// those skipped as cancelled included, wherever they ran (a worker, or the thread that finished a shutdown).
    /// </summary>
    public long CompletedWorkItemCount => _workerSet.Progress() + Interlocked.Read(ref _completedOffWorkers) + _shutdown.CompletedCount;

    /// <summary>Whether the calling thread is one of this pool's workers.</summary>
    internal bool IsOwnWorker => CurrentWorker.Pool == this;

    /// <summary>
    /// Whether the calling thread runs this pool's items: one of its workers, or a thread running an item the shutdown
    /// runs itself (the thread finishing it, a late producer: <see cref="ShutdownCoordinator.IsRunningLeftoversOnCurrentThread"/>),
    /// which is then the only one left to run what is queued. Nothing on such a thread may wait for the pool's items.
    /// </summary>
    internal bool IsRunningItemsOnCurrentThread => IsOwnWorker || _shutdown.IsRunningLeftoversOnCurrentThread;

    /// <summary>Whether the calling thread runs an item the shutdown runs itself, off the workers (see above).</summary>
    internal bool IsRunningShutdownItemsOnCurrentThread => _shutdown.IsRunningLeftoversOnCurrentThread;

    SlimThreadPool ISchedulingTarget.Pool => this;

    int ISchedulingTarget.MaximumConcurrencyLevel => _workerCount;

    bool ISchedulingTarget.IsRunningItemsOnCurrentThread => IsRunningItemsOnCurrentThread;

    bool ISchedulingTarget.MaySendInline => IsRunningItemsOnCurrentThread;

    void ISchedulingTarget.RunInline(Action<object?> action, object? state) => action(state);

    bool ISchedulingTarget.TryEnqueue(object callback, object? state, ExecutionContext? context) => TryEnqueue(callback, state, context);

    void ISchedulingTarget.RunRefused(Action<object?> callback, object? state) => ThreadPool.UnsafeQueueUserWorkItem(callback, state, preferLocal: false);

    bool ISchedulingTarget.IsShutDown => IsShutDown;

    ObjectDisposedException ISchedulingTarget.NewDisposedException() => NewDisposedException();

    /// <summary>Whether the pool has stopped accepting work.</summary>
    internal bool IsShutDown => _shutdown.IsShutDown;

    /// <summary>
    /// Whether a turn of a group must stop and queue itself again so the shutdown hands the group's items back: an
    /// abandon has begun and its last look at the queue has not.
    /// </summary>
    internal bool IsHandingBack => _shutdown.IsAbandoning && !_shutdown.IsPastLastLook;

    /// <summary>Cancelled once an abandon of the pool has begun (see <see cref="ShutdownCoordinator.AbandonToken"/>).</summary>
    internal CancellationToken AbandonToken => _shutdown.AbandonToken;

    /// <summary>Whether items wait in the pool's queue: a group's turn whose quantum is spent yields only then.</summary>
    internal bool HasQueuedWork => !_queue.IsEmpty;

    /// <summary>The ExecutionContext an item queued now carries: the caller's when the pool flows it, otherwise none.</summary>
    internal ExecutionContext? CaptureContextToFlow() => _publisher.CaptureContextToFlow();

    /// <summary>The current thread's worker slot if it is one of this pool's workers, else null: where it counts items.</summary>
    internal WorkerState? OwnWorkerState => CurrentWorker.StateOn(this);

    /// <summary>
    /// A user item finished: counted in <paramref name="state"/> (the running worker's, from <see cref="OwnWorkerState"/>)
    /// or, off the pool's workers, in the pool's own count.
    /// </summary>
    internal void OnItemCompleted(WorkerState? state)
    {
        if (state is not null)
        {
            state.OnItemCompleted();
        }
        else
        {
            Interlocked.Increment(ref _completedOffWorkers);
        }
    }

    /// <summary>The slow-item watch, or null when it is off (<see cref="SlimThreadPoolOptions.SlowItemThreshold"/>).</summary>
    internal SlowItemWatch? SlowItems => _slowItems;

    /// <summary>The starvation guard, or null when it is off.</summary>
    internal StarvationGuard? Guard => _guard;

    /// <summary>The publish protocol's owner: what groups and lanes re-queue accepted work through.</summary>
    internal IAcceptedWorkPublisher Publisher => _publisher;

    /// <summary>Idleness, for <see cref="WaitForIdleAsync"/> and the scheduler's long-running tasks.</summary>
    internal IdleTracker Idle => _idle;

    /// <summary>The long-running tasks of the pool's TaskScheduler, each on a thread of its own.</summary>
    internal LongRunningTasks LongRunning => _longRunning;

    /// <summary>
    /// Whether a long-running task is refused (it then runs on the built-in pool): once the shutdown has begun, whatever
    /// thread asks. The shutdown waits for those it accepted before, outside its own lock (LongRunningTasks).
    /// </summary>
    internal bool IsClosedToLongRunning => _shutdown.IsShutDown;

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

    private void OnShutdownFinished()
    {
        // Every worker has exited: nothing is left to watch, and the count of slow items is final from here on.
        if (_slowItems is { } slowItems)
        {
            slowItems.Stop();
            slowItems.Join();
        }

        if (SlimPoolEventSource.Log.IsEnabled() && _shutdown.FinalResult is { } result)
        {
            SlimPoolEventSource.Log.ShutdownFinished(_name, result.Mode.ToString(), result.AbandonedCount);
        }

        _meter.Dispose();
        _idle.CompleteWaiters();
    }
}
