using SlimPool.Async;
using SlimPool.Groups;
using SlimPool.Queues;
using SlimPool.Workers;

namespace SlimPool;

/// <summary>
/// A group of a <see cref="SlimThreadPool"/>'s items (<see cref="SlimThreadPool.CreateGroup"/>): at most
/// <see cref="MaxConcurrency"/> of them run at once, on the pool's workers, and the rest wait inside the group. No thread
/// is made for a group and no worker waits for one.
/// </summary>
/// <remarks>
/// <para>With <see cref="SlimGroupOptions.MaxConcurrency"/> 1 the group is a serial queue: its items run one at a time,
/// in the order they were queued, and each sees what the one before it wrote.</para>
/// <para>Groups are fair to each other and to the pool's other items: a worker runs at most
/// <see cref="SlimGroupOptions.MaxItemsPerTurn"/> of a group's items, or for <see cref="SlimGroupOptions.MaxTurnDuration"/>,
/// then gives the worker back, and the group's turn waits behind what the pool has queued since.</para>
/// <para>Each group has its own <see cref="TaskScheduler"/> and <see cref="SynchronizationContext"/>: code started in
/// the group that awaits resumes in the group, under the same limit.</para>
/// <para>Shutting a group down (<see cref="ShutdownAsync"/>, <see cref="Dispose"/>) affects only the group. Shutting the
/// pool down drains the group's accepted items with the pool's, or hands them back with the pool's in an abandon;
/// afterwards the group accepts nothing.</para>
/// </remarks>
public sealed partial class SlimThreadPoolGroup : ThreadPoolBase, IThreadPool, ISchedulingTarget
{
    // A group costs what its fields and GroupTurns' do (240 bytes idle, measured, its SynchronizationContext included)
    // until something needs more: the SynchronizationContext is made by the first turn or the first read, the
    // TaskScheduler, the skip counter, the default name and the shutdown's state by their first use, and the queue
    // exists only while items wait (GroupTurns). A million idle groups hold about 240 MB, not 34 GB.
    private static readonly System.Runtime.CompilerServices.ConditionalWeakTable<SlimThreadPoolGroup, RefusedContinuations> s_refused = new();

    private readonly SlimThreadPool _pool;
    private readonly GroupTurns _turns;
    private readonly int _number;                            // the pool's count of groups when this one was made
    private string? _name;                                   // SlimGroupOptions.Name, or made from _number on first read
    private SlimSynchronizationContext? _synchronizationContext;
    private SlimTaskScheduler? _taskScheduler;
    private SkipCounter? _skipped;
    private GroupShutdown? _shutdown;

    internal SlimThreadPoolGroup(SlimThreadPool pool, SlimGroupOptions options, int number)
    {
        _pool = pool;
        _name = options.Name;
        _number = number;
        _turns = new GroupTurns(pool, this, options);
    }

    /// <summary>The group's name (<see cref="SlimGroupOptions.Name"/>, or the one the pool gave it).</summary>
    public string Name => _name ??= string.Create(System.Globalization.CultureInfo.InvariantCulture, $"{_pool.Name} group {_number}");

    /// <summary>The pool whose workers run the group's items.</summary>
    public SlimThreadPool Pool => _pool;

    /// <summary>How many of the group's items may run at once (<see cref="SlimGroupOptions.MaxConcurrency"/>).</summary>
    public int MaxConcurrency => _turns.MaxConcurrency;

    /// <summary>The priority of the group's turns on the pool (<see cref="SlimGroupOptions.Priority"/>).</summary>
    public WorkItemPriority Priority => _turns.Priority;

    /// <summary>How many threads can run the group's items at once: <see cref="MaxConcurrency"/>, at most the pool's <see cref="SlimThreadPool.WorkerCount"/>.</summary>
    public int WorkerCount => Math.Min(MaxConcurrency, _pool.WorkerCount);

    /// <summary>The approximate number of the group's items queued and not yet started.</summary>
    public int PendingWorkItemCount => _turns.QueuedCount;

    /// <summary>
    /// The number of the group's items that have run (those that threw and those skipped as cancelled included). A turn
    /// adds its items once per quantum and when it ends, so while one runs the count may trail by up to
    /// <see cref="SlimGroupOptions.MaxItemsPerTurn"/> items; once the group is idle or drained it is exact.
    /// </summary>
    public long CompletedWorkItemCount => _turns.CompletedCount;

    /// <summary>The number of the group's items skipped because their cancellation token was cancelled before they started.</summary>
    public long CancelledWorkItemCount => Volatile.Read(ref _skipped)?.Count ?? 0;

    /// <summary>
    /// A <see cref="System.Threading.Tasks.TaskScheduler"/> that runs tasks as the group's items: at most
    /// <see cref="MaxConcurrency"/> at a time. A task is inlined only inside one of the group's own items; a
    /// <see cref="TaskCreationOptions.LongRunning"/> task is an item like the others.
    /// </summary>
    public TaskScheduler TaskScheduler => _taskScheduler ?? MakeTaskScheduler();

    /// <summary>
    /// The <see cref="System.Threading.SynchronizationContext"/> the group's items run under: <c>Post</c> queues to the
    /// group, so <c>await</c> in the group resumes in the group. <c>Send</c> runs inline inside one of the group's
    /// items; elsewhere it posts and waits.
    /// </summary>
    public SynchronizationContext SynchronizationContext => Volatile.Read(ref _synchronizationContext) ?? MakeSynchronizationContext();

    /// <summary>
    /// A <see cref="System.IO.Pipelines.PipeScheduler"/> that runs each continuation a pipe schedules as one of the
    /// group's items (a serial group runs them one at a time, in order), as the pool's
    /// <see cref="SlimThreadPool.PipeScheduler"/> does for the pool. A new one, of a few bytes, on each read: the group
    /// keeps nothing for it (an idle group stays small), so read it once for a pipe's options.
    /// </summary>
    public System.IO.Pipelines.PipeScheduler PipeScheduler => new SlimPipeScheduler(this);

    /// <summary>The previous group in the pool's list of groups not yet shut down (under the pool's lock).</summary>
    internal SlimThreadPoolGroup? PreviousInPool { get; set; }

    /// <summary>The next group in the pool's list of groups not yet shut down (under the pool's lock).</summary>
    internal SlimThreadPoolGroup? NextInPool { get; set; }

    /// <summary>Whether the group holds a queue now: it has one only while items wait in it.</summary>
    internal bool HasQueue => _turns.HasQueue;

    SlimThreadPool ISchedulingTarget.Pool => _pool;

    int ISchedulingTarget.MaximumConcurrencyLevel => MaxConcurrency;

    bool ISchedulingTarget.IsRunningItemsOnCurrentThread => _turns.IsCurrent;

    bool ISchedulingTarget.MaySendInline => _turns.IsCurrentOrSuspendedHere;

    void ISchedulingTarget.RunInline(Action<object?> action, object? state)
    {
        if (_turns.IsCurrent)
        {
            action(state);
        }
        else
        {
            _turns.RunReentered(action, state);
        }
    }

    // The scheduler's and the context's items (continuations and tasks of the group's work): not cancellable, not
    // wrapped, and accepted through a drain of the group or of the pool.
    bool ISchedulingTarget.TryEnqueue(object callback, object? state, ExecutionContext? context) => _turns.TryAcceptContinuation(callback, state, context);

    // A serial group's refused continuations wait for its running item and go one at a time (RefusedContinuations),
    // kept beside the group rather than in a field: every group would pay for one, and continuations are refused only
    // past a shutdown. A wider group's run at once, as the pool's do: one of its items may be waiting for such a
    // continuation, which before the abandon another of its turns would have run.
    void ISchedulingTarget.RunRefused(Action<object?> callback, object? state)
    {
        if (MaxConcurrency == 1)
        {
            s_refused.GetValue(this, static group => new RefusedContinuations(group)).Add(callback, state);
        }
        else
        {
            ThreadPool.UnsafeQueueUserWorkItem(callback, state, preferLocal: false);
        }
    }

    bool ISchedulingTarget.IsShutDown => _pool.IsShutDown || _turns.IsClosed;

    ObjectDisposedException ISchedulingTarget.NewDisposedException() => NewShutDownException();

    /// <summary>This group's scheduler, typed: the <see cref="Run(Action, CancellationToken)"/> shapes start their tasks on it.</summary>
    private SlimTaskScheduler Scheduler => _taskScheduler ?? MakeTaskScheduler();

    /// <summary>The pool's abandon: the group's queued items come back (see <see cref="GroupTurns.HandBackQueued"/>).</summary>
    internal void HandBackQueued(List<AbandonedWorkItem> abandoned) => _turns.HandBackQueued(abandoned);

    private bool TryAccept(object callback, object? state, CancellationToken cancellationToken, bool waitForRoom = false)
    {
        if (cancellationToken.CanBeCanceled)
        {
            callback = new CancellableWorkItem(callback, state, cancellationToken, (Volatile.Read(ref _skipped) ?? MakeSkipCounter()).OnSkipped);
            state = null;
        }

        return _turns.TryAccept(callback, state, waitForRoom);
    }

    // The lazily made parts: racing threads may each make one, and all use the first one stored.
    private SynchronizationContext MakeSynchronizationContext()
    {
        Interlocked.CompareExchange(ref _synchronizationContext, new SlimSynchronizationContext(this), null);
        return _synchronizationContext!;
    }

    private SlimTaskScheduler MakeTaskScheduler()
    {
        Interlocked.CompareExchange(ref _taskScheduler, new SlimTaskScheduler(this), null);
        return _taskScheduler!;
    }

    private SkipCounter MakeSkipCounter()
    {
        Interlocked.CompareExchange(ref _skipped, new SkipCounter(), null);
        return _skipped!;
    }

    // Queue: waits for room in a bounded pool (GroupTurns.TryAccept), throws once the group or the pool shut down.
    private void AcceptOrThrow(object callback, object? state, CancellationToken cancellationToken)
    {
        if (!TryAccept(callback, state, cancellationToken, waitForRoom: true))
        {
            ThrowShutDown();
        }
    }

    private void ThrowShutDown() => throw NewShutDownException();

    private ObjectDisposedException NewShutDownException() =>
        new(nameof(SlimThreadPoolGroup), $"The group '{Name}' (or its pool) has been shut down and no longer accepts work.");
}
