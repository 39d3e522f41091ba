using System.Diagnostics;
using System.Diagnostics.Metrics;
using System.Runtime.CompilerServices;
using SlimPool.Lifecycle;
using SlimPool.Queues;
using SlimPool.Workers;

namespace SlimPool.Scheduling;

/// <summary>
/// The publish protocol of one pool: how an accepted item enters the queue, who is woken for it, and what becomes of
/// an item that races the shutdown. The pool decides whether an item is accepted (its arguments, the bound); from then
/// on this type alone puts it where a worker finds it. Groups and priority lanes re-queue accepted work through
/// <see cref="IAcceptedWorkPublisher"/>.
/// </summary>
/// <remarks>
/// <para><b>Order of a publish.</b> Enqueue, full fence, shutdown flag, wake check, guard arming. The fence makes the
/// item visible before the producer reads anything a worker or the shutdown writes, and pairs with three writers: a
/// parking worker's announce, which it follows with a re-check of the queue (<see cref="IdleWait"/>: the re-check sees
/// the item, or the producer sees the announce and wakes); the starvation guard's park, likewise
/// (<see cref="StarvationGuard"/>); and <see cref="ShutdownCoordinator.Begin"/>'s exchange (a producer that reads the
/// flag clear after its fence published before the exchange, so the workers' last look finds the item; one that reads
/// it set hands the item to the shutdown, <see cref="ShutdownCoordinator.OnQueuedDuringShutdown"/>). The shared
/// queue's claim is a compare-and-swap, itself a full fence (<see cref="IFencedEnqueue"/>): an item from outside the
/// pool pays no second one. The models <c>SpinThenParkIdleWait.pml</c> and <c>StarvationGuard.pml</c> name the steps
/// here.</para>
/// <para><b>Accepted.</b> Three methods refuse, and only before they touch the queue: the two <c>TryPublish</c> and
/// <see cref="TryPublishBatch"/>, when they read the shutdown flag set. Past that read an item is accepted and goes
/// through to the end: the drain runs it or an abandon hands it back. <see cref="Publish"/> (a continuation of accepted
/// work) and <see cref="PublishAccepted"/> (a group's turn, a lane's ticket: they stand for items accepted earlier)
/// never refuse.</para>
/// <para><b>Ownership.</b> The priority lanes are made here, once, on the first High or Low item (<see cref="Lanes"/>);
/// <c>t_queueWaitSample</c> is each producing thread's own. Everything else is read-only after construction.</para>
/// </remarks>
internal sealed class Publisher : IAcceptedWorkPublisher
{
    /// <summary>While the queue-wait histogram is enabled, one item in this many (per producing thread) is timed.</summary>
    internal const int QueueWaitSampleInterval = 64;

    /// <summary>
    /// How many items of a batch are published together, with one claim and then one wake check: a woken worker starts
    /// on the first chunk while the producer writes the next.
    /// </summary>
    internal const int BatchChunk = 64;

    // Items this thread queued while the queue-wait histogram was enabled (see StampForQueueWait).
    [ThreadStatic]
    private static uint t_queueWaitSample;

    private readonly SlimThreadPool _owner; // only to tell whether the caller is one of its workers
    private readonly IWorkQueue _queue;
    private readonly IFencedEnqueue? _fencedQueue; // _queue, when its enqueue can end with a full fence
    private readonly WorkStealingWorkQueue? _stealingQueue; // _queue, when it is the work-stealing one (the default)
    private readonly LockFreeQueue<PaddedHeadAndTail>? _sharedQueue; // its shared queue: one load less for a producer
    private readonly IdleWait _idleWait;
    private readonly StarvationGuard? _guard;
    private readonly ShutdownCoordinator _shutdown;
    private readonly CapacityGate? _gate;
    private readonly Histogram<double> _queueWait;
    private readonly Action<TimeSpan> _recordQueueWait;
    private readonly TimeSpan _lowPriorityMaxDelay;
    private readonly bool _namingItems;
    private readonly bool _flowExecutionContext;

    // Set once (CreateLanes), on the first High or Low item; workers read it before every look. A worker that still
    // reads null only leaves a High item to its ticket, which is already in the queue.
    private PriorityLanes? _lanes;

    public Publisher(
        SlimThreadPool owner,
        IWorkQueue queue,
        IdleWait idleWait,
        StarvationGuard? guard,
        ShutdownCoordinator shutdown,
        CapacityGate? gate,
        (Histogram<double> Histogram, Action<TimeSpan> Record) queueWait,
        TimeSpan lowPriorityMaxDelay,
        bool namingItems,
        bool flowExecutionContext)
    {
        _owner = owner;
        _queue = queue;
        _fencedQueue = queue as IFencedEnqueue;
        _stealingQueue = queue as WorkStealingWorkQueue;
        _sharedQueue = _stealingQueue?.Shared;
        _idleWait = idleWait;
        _guard = guard;
        _shutdown = shutdown;
        _gate = gate;
        (_queueWait, _recordQueueWait) = queueWait;
        _lowPriorityMaxDelay = lowPriorityMaxDelay;
        _namingItems = namingItems;
        _flowExecutionContext = flowExecutionContext;
    }

    /// <summary>The ExecutionContext an item queued now carries: the caller's when the pool flows it, otherwise none.</summary>
    public ExecutionContext? CaptureContextToFlow() => _flowExecutionContext ? ExecutionContext.Capture() : null;

    /// <summary>The priority lanes, or null until the first High or Low item.</summary>
    public PriorityLanes? Lanes => _lanes;

    /// <summary>
    /// Publishes an item the caller holds a capacity slot for, unless the pool no longer accepts work: false then, and
    /// nothing was queued (the caller gives the slot back). <paramref name="preferLocal"/> false sends an item queued on
    /// a worker to the shared queue, behind what is already queued there, instead of the worker's own slot.
    /// </summary>
    public bool TryPublish(object callback, object? state, bool preferLocal, WorkItemPriority priority)
    {
        if (_shutdown.IsShutDown)
        {
            return false;
        }

        PublishWithContext(callback, state, preferLocal, priority, CaptureContextToFlow());
        return true;
    }

    /// <summary>
    /// <see cref="TryPublish(object, object?, bool, WorkItemPriority)"/> for an item whose context was captured
    /// earlier, by the call that accepted it (<see cref="CaptureContextToFlow"/>): a <c>QueueAsync</c> that waited for
    /// room publishes from the thread its wait ended on, whose context is not its caller's.
    /// </summary>
    public bool TryPublish(object callback, object? state, ExecutionContext? context)
    {
        if (_shutdown.IsShutDown)
        {
            return false;
        }

        PublishWithContext(callback, state, preferLocal: true, WorkItemPriority.Normal, context);
        return true;
    }

    private void PublishWithContext(object callback, object? state, bool preferLocal, WorkItemPriority priority, ExecutionContext? context)
    {
        if (priority == WorkItemPriority.Normal)
        {
            Publish(callback, state, preferLocal, context);
        }
        else
        {
            PublishToLane(callback, state, priority, context);
        }
    }

    /// <inheritdoc />
    public void PublishAccepted(object callback, bool preferLocal, WorkItemPriority priority = WorkItemPriority.Normal) =>
        FinishAccepted(QueueAccepted(callback, preferLocal, priority));

    /// <inheritdoc />
    public bool QueueAccepted(object callback, bool preferLocal, WorkItemPriority priority)
    {
        Debug.Assert(callback is IWorkItem, "accepted work is a turn or a ticket: a work item of the pool's own");
        _gate?.ForceAcquire();
        if (priority == WorkItemPriority.Normal)
        {
            EnqueueFenced(callback, null, preferLocal, context: null);
            return true;
        }

        return QueueToLane(callback, null, priority, context: null);
    }

    /// <inheritdoc />
    public void FinishAccepted(bool queued)
    {
        if (queued)
        {
            AfterPublish(count: 1);
        }
        else if (_shutdown.IsShutDown)
        {
            // A lane's item covered by a ticket outstanding (QueueToLane). That ticket's producer may not have published
            // it yet, and if the shutdown's last look took that producer's item meanwhile, this one would wait for it,
            // and run on its thread after the shutdown. Past the add (a compare-and-swap, a full fence), a producer that
            // finds the shutdown begun hands its item to it, as after a publish: the look takes it, or, past the last
            // look, this thread runs one leftover.
            _shutdown.OnQueuedDuringShutdown(IsOwnWorker);
        }
    }

    /// <summary>
    /// Publishes an item already accepted and holding its slot, shutdown or not (a continuation of accepted work: past
    /// the shutdown flag the shutdown takes it, see the remarks).
    /// </summary>
    public void Publish(object callback, object? state, bool preferLocal, ExecutionContext? context)
    {
        EnqueueFenced(callback, state, preferLocal, context);
        AfterPublish(count: 1);
    }

    // The item where the workers look, then a full fence: it orders the item's publication before AfterPublish reads the
    // shutdown flag (pairs with ShutdownCoordinator.Begin's exchange) and the idle state (pairs with a parking worker's
    // announce, IdleWait).
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private void EnqueueFenced(object callback, object? state, bool preferLocal, ExecutionContext? context)
    {
        if (_queueWait.Enabled)
        {
            EnqueueSampled(callback, state, preferLocal, context);
        }
        else if (_sharedQueue is { } shared)
        {
            // A worker's own push is plain stores, so it fences here; the shared queue's claim is a fence already (the
            // shared queue is never retired).
            if (preferLocal && _stealingQueue!.TryPushOwn(callback, state, context))
            {
                Interlocked.MemoryBarrier();
            }
            else
            {
                shared.TryEnqueue(callback, state, context);
            }
        }
        else
        {
            EnqueueThenFence(callback, state, context, preferLocal);
        }
    }

    // While the queue-wait histogram listens: one item in QueueWaitSampleInterval stamped. Kept out of EnqueueFenced,
    // whose common path is one read of the histogram's flag.
    [MethodImpl(MethodImplOptions.NoInlining)]
    private void EnqueueSampled(object callback, object? state, bool preferLocal, ExecutionContext? context)
    {
        StampForQueueWait(ref callback, ref state);
        EnqueueThenFence(callback, state, context, preferLocal);
    }

    /// <summary>
    /// Publishes a batch whose slots the caller holds, in order, unless the pool no longer accepts work: false then, and
    /// nothing was queued. Accepted at the flag read here, as a single item is at <c>TryPublish</c>'s: from there
    /// on every chunk is published, each followed by one wake check (a woken worker wakes the next while items wait),
    /// and a batch that lands after the shutdown began is handed to it whole once the last chunk is out.
    /// </summary>
    public bool TryPublishBatch<TBatch>(scoped ref TBatch batch)
        where TBatch : IBatchSource, allows ref struct
    {
        if (_shutdown.IsShutDown)
        {
            return false;
        }

        int count = batch.Count;
        Debug.Assert(count > 0, "an empty batch is accepted before any slot is taken, and never published");
        bool sampling = _queueWait.Enabled; // read once a batch: a listener that starts mid-batch samples the next one
        for (int start = 0; start < count; start += BatchChunk)
        {
            int length = Math.Min(BatchChunk, count - start);
            if (sampling)
            {
                PublishStamped(ref batch, start, length);
            }
            else
            {
                EnqueueBatchThenFence(ref batch, start, length);
            }

            if (!_shutdown.IsShutDown)
            {
                _idleWait.OnWorkQueued();
                _guard?.OnQueued();
            }
        }

        if (_shutdown.IsShutDown)
        {
            _shutdown.OnQueuedDuringShutdown(IsOwnWorker, count);
        }

        return true;
    }

    /// <summary>
    /// A worker moved items from the shared queue into its own deque (<see cref="WorkStealingWorkQueue"/>'s refill): the
    /// same fence, wake check and guard arming as after a publish, so a sibling or the guard that parked while the items
    /// were in transit (their re-check saw neither place holding them) is woken.
    /// </summary>
    public void OnRefilled()
    {
        Interlocked.MemoryBarrier();
        _idleWait.OnWorkQueued();
        _guard?.OnQueued();
    }

    private bool IsOwnWorker => CurrentWorker.Pool == _owner;

    // Past the fence: a publish that finds the shutdown begun hands its items to it; otherwise the wake check, then the
    // guard's arming (after the same fence: see StarvationGuard).
    private void AfterPublish(int count)
    {
        if (_shutdown.IsShutDown)
        {
            _shutdown.OnQueuedDuringShutdown(IsOwnWorker, count);
            return;
        }

        _idleWait.OnWorkQueued();
        _guard?.OnQueued();
    }

    private void PublishToLane(object callback, object? state, WorkItemPriority priority, ExecutionContext? context) =>
        FinishAccepted(QueueToLane(callback, state, priority, context));

    // A High or Low item goes into its lane with its context, then its ticket, which carries none, into the queue (see
    // PriorityLanes): true when the ticket was queued, false when one outstanding covers the item. Kept out of the
    // Normal path.
    [MethodImpl(MethodImplOptions.NoInlining)]
    private bool QueueToLane(object callback, object? state, WorkItemPriority priority, ExecutionContext? context)
    {
        Debug.Assert(priority != WorkItemPriority.Normal, "Normal items go straight to the queue");
        PriorityLanes lanes = _lanes ?? CreateLanes();
        if (lanes.Add(priority, new QueuedWorkItem(callback, state, context)))
        {
            EnqueueFenced(lanes.TicketFor(priority), null, preferLocal: false, context: null);
            return true;
        }

        _gate?.Release(); // a ticket outstanding covers the item and holds a slot for it
        return false;
    }

    private PriorityLanes CreateLanes()
    {
        var lanes = new PriorityLanes(this, _queue, _shutdown, _lowPriorityMaxDelay, _namingItems ? _owner : null);
        return Interlocked.CompareExchange(ref _lanes, lanes, null) ?? lanes;
    }

    // One item in QueueWaitSampleInterval per producing thread is stamped while the histogram is enabled: a stamp is
    // a small object and a clock read, too much for every tiny item; disabled, this is one field read.
    private void StampForQueueWait(ref object callback, ref object? state)
    {
        if (_queueWait.Enabled && (++t_queueWaitSample & (QueueWaitSampleInterval - 1)) == 0)
        {
            callback = new TimedWorkItem(callback, state, _recordQueueWait);
            state = null;
        }
    }

    // Publishes the entry, then makes sure a full fence follows its publication. The shared queue's compare-and-swap
    // that makes the entry visible is one already (IFencedEnqueue). A push onto a worker's own slot, or any other
    // queue, gets an explicit one: the pushing worker is awake, but it may block in its next item without saying so,
    // and a sibling that is parking must still either see the pushed item in its re-check or be seen (and woken) by us.
    [MethodImpl(MethodImplOptions.NoInlining)]
    private void EnqueueThenFence(object callback, object? state, ExecutionContext? context, bool preferLocal)
    {
        var entry = new QueuedWorkItem(callback, state, context);
        if (_fencedQueue is { } fenced)
        {
            if (preferLocal ? fenced.EnqueueFenced(entry) : fenced.EnqueueFencedShared(entry))
            {
                return;
            }
        }
        else
        {
            ThreadInterrupts.Enqueue(_queue, entry);
        }

        Interlocked.MemoryBarrier();
    }

    // Publishes a chunk where every worker looks, each entry copied once from the caller's span into the queue's cell,
    // then makes sure a full fence follows (see EnqueueThenFence).
    private void EnqueueBatchThenFence<TBatch>(scoped ref TBatch batch, int start, int length)
        where TBatch : IBatchSource, allows ref struct
    {
        if (_fencedQueue is { } fenced)
        {
            if (fenced.EnqueueBatchFenced(ref batch, start, length))
            {
                return;
            }
        }
        else
        {
            for (int i = start; i < start + length; i++)
            {
                ThreadInterrupts.Enqueue(_queue, batch.At(i));
            }
        }

        Interlocked.MemoryBarrier();
    }

    // While the queue-wait histogram listens, a chunk goes through a stack buffer where its sampled items are stamped.
    private void PublishStamped<TBatch>(scoped ref TBatch batch, int start, int length)
        where TBatch : IBatchSource, allows ref struct
    {
        ChunkBuffer buffer = default;
        Span<QueuedWorkItem> chunk = buffer;
        for (int i = 0; i < length; i++)
        {
            QueuedWorkItem entry = batch.At(start + i);
            object callback = entry.StoredCallback;
            object? state = entry.StoredState;
            StampForQueueWait(ref callback, ref state);
            chunk[i] = new QueuedWorkItem(callback, state, entry.Context);
        }

        var stamped = new EntryBatch(chunk[..length]);
        EnqueueBatchThenFence(ref stamped, 0, length);
    }

    // One chunk's entries on the caller's stack: entries hold references, so no stackalloc.
    [InlineArray(BatchChunk)]
    private struct ChunkBuffer
    {
        private QueuedWorkItem _first;
    }
}
