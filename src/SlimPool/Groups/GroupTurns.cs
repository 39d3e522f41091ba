using System.Diagnostics;
using System.Runtime.InteropServices;
using SlimPool.Lifecycle;
using SlimPool.Queues;

namespace SlimPool.Groups;

/// <summary>
/// A group's items and its turns on the pool: the group's own queue, how many turns it holds, and the turn itself (an
/// item of the pool that runs the group's items one after another until the queue is empty or the quantum is spent).
/// </summary>
/// <remarks>
/// <para><b>Fields.</b> <c>_turns</c> counts the turns held, each either queued on the pool or running (and, in
/// higher bits, their publishers and a generation: see "A queue call returns behind a published turn"); the count never
/// exceeds <c>_maxConcurrency</c>, so at most that many of the group's items run at once. A turn is taken by a
/// compare-and-swap below the limit and given back by an interlocked add, both full fences. <c>_accepted</c> counts the items
/// accepted (producers write it), <c>_ran</c> those run (the turns write it, once a quantum; a serial group's one turn
/// with a plain store as it ends, see EndTurn), and <c>_notRun</c> those
/// handed back or refused after acceptance (rare). An item is pending from its acceptance until it is counted in one of
/// the other two, and <c>_ran + _notRun ≤ _accepted</c> always holds; the group has drained when it is closed and none
/// is pending. <c>_closed</c>, <c>_abandoning</c> and <c>_swept</c> go from 0 to 1 once each. The counters are not padded
/// to cache lines: a group is meant to cost a few hundred bytes, and there may be a million of them.</para>
/// <para><b>The queue exists only while it holds items, or briefly after.</b> <c>_queue</c> is null until a producer
/// needs it, and once a turn finds it empty it is retired and the field cleared (<see cref="DropQueueIfEmpty"/>): by
/// the turn itself off the pool's workers, else by the worker later, once parked a while or after more groups' turns
/// (<see cref="DeferredQueueDrops"/>), so an idle group holds no queue storage once the pool is idle; the group's
/// abandon drops it too when a turn left it mid-sweep. A drop is safe from any thread at any moment, a turn held or
/// not: a retired queue refuses every later enqueue (<see cref="LockFreeQueue{TPositions}.TryRetire"/>), so an item is only
/// ever accepted into the queue the field holds: a producer that read a queue just before its retirement fails
/// to enqueue, clears the field itself if the retirer has not yet, installs a fresh queue (a compare-and-swap from null)
/// and enqueues there. A queue leaves the field only after it was retired, and it is retired only when empty, so no item
/// is ever left behind in a dropped queue, and a serial group's items stay in order (an item goes into a new queue only
/// after the old one was emptied).</para>
/// <para><b>No item is stranded.</b> While the queue holds an item, some turn is held. A producer publishes its item
/// (the claim of its cell, a compare-and-swap: a full fence), then reads <c>_turns</c> (<see cref="Enqueue"/>); a turn
/// that finds the queue empty gives the turn back (a full fence), then reads <c>_queue</c> and looks at the queue it
/// finds (<see cref="EndTurn"/>), and drops or defers the drop only after that look. Either the producer sees the turn given back and takes one, or the
/// turn's look comes after the producer's claim: it then reads the producer's queue (installed before the claim, and
/// replaced only once retired, which needs the item taken) and sees the item, and takes the turn back. A turn that yields
/// at the end of its quantum keeps its turn and queues itself again; so does one that the pool's abandon stops, and the
/// pool's shutdown then hands the group's items back in its place (<see cref="HandBack"/>). GroupTurns.pml models this,
/// the drop included.</para>
/// <para><b>A queue call returns behind a published turn.</b> A turn held is not yet where a drain's workers look while
/// the producer that took it is still putting it on the pool; an item left to that turn by another producer, whose call
/// returned before a drain began, would run only after the drain's workers left. So the compare-and-swap that takes a
/// turn to publish it also counts its producer a publisher (<c>_turns</c> holds the turns, the publishers and a
/// generation, see <c>TurnsIn</c>), and the producer leaves the count once the turn is queued (<see cref="PublishTaken"/>:
/// the enqueue's full fence, then an add). Every held turn not yet published has its publisher counted, so a word with
/// more turns than publishers shows a held turn that is queued or running: it runs the item, or gives the turn back
/// after the item's claim and then sees it. A producer whose take fails reads the word after its claim; with no more
/// turns than publishers it waits for a read that shows more, or for a later generation, which each turn's end moves on
/// with its decrement (a turn that ended after the claim saw the item or found it taken). A turn that ends, sees an
/// item and cannot take the turn back leaves it to the holders the same way, and so does the abandon's look after its
/// sweep. The wait is as long as another producer's enqueue, longer only while that producer is preempted inside it;
/// nothing waits on a thread that is inside its own publish, since the publisher leaves the count before the publish's
/// finish, which may run the turn on its thread once the pool has finished. GroupTurns.pml models it (DRAIN).</para>
/// <para><b>Layout.</b> A producer writes <c>_accepted</c> once an item; a turn on another core reads the queue, the
/// abandon flags once an item. On one cache line, each item would move that line between the two cores
/// (<c>SerialQueueBenchmarks</c>, streaming: about 34 ns an item with them on one line, 23 apart). The fields are
/// therefore laid out by hand: <c>_accepted</c> first, the fields a turn
/// reads per item from offset 64 on (64 bytes past it, so on another line wherever the object starts), the rarely
/// touched ones between; no padding is added, so the fields end at 112 bytes. <c>_shortItems</c>, a turn's hint to
/// the next (<see cref="TurnQuantum.IsShort"/>), shares the producers' line and is written only when it changes.</para>
/// <para><b>Serial groups.</b> With one turn, one thread at a time takes items from the queue, in its order; a turn
/// ends with a full fence (the decrement, or the pool's queueing of it) that the next turn's taking or dequeueing
/// pairs with, so each item sees what the one before it wrote.</para>
/// </remarks>
[StructLayout(LayoutKind.Explicit)]
internal sealed partial class GroupTurns : IWorkItem, IHandsBackItems
{
    // A queue's first ring: a group that runs an item now and then (an actor answering one message at a time) needs one
    // or two cells, and pays for them each time it wakes, 32 bytes a cell; a burst grows the queue fourfold a ring
    // (LockFreeQueue: 2, 8, 32, ... cells), and the queue goes when the burst is done.
    private const int InitialQueueLength = 2;

    // Set in _accepted by whoever finds the closed group drained, with a compare-and-swap from the accepted count it read
    // (TryMarkDrained), before the drained signal. A continuation counted after the mark reads it in its increment's
    // result and is refused; one counted before makes the swap fail, and its own finish looks again. So no accepted item
    // runs after the signal (a drain's result).
    private const long DrainedMark = 1L << 62;

    // _turns holds three counts in one word, so that the compare-and-swap that takes a turn also says the turn is not yet
    // published: the turns held (bits 0 to 31, at most _maxConcurrency), the producers that took one and have not yet
    // left the count after publishing it (bits 32 to 47, at most one a thread), and how many turns ended (bits 48 to
    // 63, a generation that wraps). See the remarks, "A queue call returns behind a published turn".
    private const long TurnMask = 0xFFFF_FFFFL;
    private const long PublisherOne = 1L << 32;
    private const long GenerationOne = 1L << 48;
    private const long GenerationMask = -GenerationOne; // bits 48 to 63

    // A turn given back: one fewer held, a generation more, in one add.
    private const long TurnEnded = GenerationOne - 1;

    // The drained signal of every group that had nothing pending when it closed: completed once, shared.
    private static readonly TaskCompletionSource s_drained = CompletedSignal();

    // The fields' places (see the remarks, "Layout"): the producers' per-item write first, the turns' per-item reads at
    // least a cache line after it, the rarely touched fields between.
    [FieldOffset(0)]
    private long _accepted;                      // producers, once an item
    [FieldOffset(8)]
    private TaskCompletionSource? _drained;      // set by Close, or by the first look that finds the closed group drained
    [FieldOffset(16)]
    private IdleWaiters? _idleWaiters;           // made by the first WaitForIdleAsync; read after every finished count's change
    [FieldOffset(24)]
    private long _notRun;                        // handed back, or refused after the close
    [FieldOffset(32)]
    private long _ran;                           // turns, once a quantum
    [FieldOffset(40)]
    private long _turns;                         // producers read it once an item; turns write it when they end (see TurnsIn)
    [FieldOffset(48)]
    private int _closed;
    [FieldOffset(52)]
    private int _dropDeferred;                   // 1 while a worker holds the group in its DeferredQueueDrops
    [FieldOffset(56)]
    private readonly sbyte _priority;            // a WorkItemPriority (-1 to 1) in a byte, leaving room for the next field
    [FieldOffset(57)]
    private bool _shortItems;                    // the latest turn's quantum last read short items (TurnQuantum.IsShort)
    [FieldOffset(64)]
    private readonly SlimThreadPool _pool;
    [FieldOffset(72)]
    private readonly SlimThreadPoolGroup _group; // whose SynchronizationContext every item of the group runs under
    [FieldOffset(80)]
    private LockFreeQueue<CompactHeadAndTail>? _queue; // null while the group holds no item (see the remarks)
    [FieldOffset(88)]
    private readonly int _maxConcurrency;
    [FieldOffset(92)]
    private readonly int _maxItemsPerTurn;
    [FieldOffset(96)]
    private int _abandoning;
    [FieldOffset(100)]
    private int _swept;
    [FieldOffset(104)]
    private readonly long _maxTurnTicks;         // Stopwatch ticks; 0 when turns have no time limit

    public GroupTurns(SlimThreadPool pool, SlimThreadPoolGroup group, SlimGroupOptions options)
    {
        _pool = pool;
        _group = group;
        _maxConcurrency = options.MaxConcurrency;
        _maxItemsPerTurn = options.MaxItemsPerTurn;
        _maxTurnTicks = options.MaxTurnDuration == Timeout.InfiniteTimeSpan
            ? 0
            : Math.Max(1, (long)(options.MaxTurnDuration.TotalSeconds * Stopwatch.Frequency));
        _priority = (sbyte)options.Priority;
    }

    private static TaskCompletionSource CompletedSignal()
    {
        var drained = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        drained.SetResult();
        return drained;
    }

    /// <summary>How many of the group's items may run at once.</summary>
    public int MaxConcurrency => _maxConcurrency;

    /// <summary>Whether the group was closed (disposed or shut down): it accepts no more items.</summary>
    public bool IsClosed => Volatile.Read(ref _closed) != 0;

    /// <summary>The priority the group's turns are queued with.</summary>
    public WorkItemPriority Priority => (WorkItemPriority)_priority;

    /// <summary>The number of items queued and not yet started.</summary>
    public int QueuedCount => Volatile.Read(ref _queue)?.Count ?? 0;

    /// <summary>Whether the group holds a queue (it drops it when a turn finds it empty).</summary>
    public bool HasQueue => Volatile.Read(ref _queue) is not null;

    /// <summary>
    /// Accepts an item unless the group is closed or its pool shut down. An item accepted here runs exactly once, or is
    /// handed back by an abandon (the group's or the pool's).
    /// </summary>
    /// <remarks>
    /// Each item queued in the group holds one of the pool's capacity slots (<see cref="SlimThreadPoolOptions.BoundedCapacity"/>)
    /// until a turn takes it, or it is handed back: a full pool refuses it (<paramref name="waitForRoom"/> false), or
    /// makes the caller wait for room; on one of the pool's workers it goes over the bound instead, as the pool's
    /// continuations do (a worker must not wait on its own pool, and running it inline would take it out of the group).
    /// </remarks>
    public bool TryAccept(object callback, object? state, bool waitForRoom = false) =>
        !_pool.IsShutDown && TryReserveSlots(1, waitForRoom) && AcceptReserved(callback, state, _pool.CaptureContextToFlow());

    // The pool's slots for `count` items: at once if free; else, with waitForRoom, after a wait that the pool's room, the
    // pool's shutdown or the group's own shutdown ends (its Closing token: a Queue waiting for room fails as soon as the
    // group is disposed, as QueueAsync does). Room that came after a wait may have come just before the pool's shutdown
    // closed its gate, with this thread waking after it: the pool is asked again, as QueueAsync asks it, so that no
    // item is accepted after ShutdownAsync returned.
    private bool TryReserveSlots(int count, bool waitForRoom)
    {
        if (_pool.TryReserveSlots(count, wait: false))
        {
            return true;
        }

        if (!waitForRoom || !_pool.TryReserveSlots(count, wait: true, _group.ClosingToken()))
        {
            return false;
        }

        if (_pool.IsShutDown)
        {
            _pool.ReleaseSlots(count);
            return false;
        }

        return true;
    }

    /// <summary>
    /// Accepts an item whose pool slot the caller has reserved (<see cref="TryAccept"/>, or a <c>QueueAsync</c> that
    /// waited for room), with the context its caller had (<see cref="SlimThreadPool.CaptureContextToFlow"/>, taken at
    /// the call: a wait for room ends on another thread): false, the slot given back, once the group is closed.
    /// </summary>
    public bool AcceptReserved(object callback, object? state, ExecutionContext? context)
    {
        // Counted before the look at _closed (both full fences): Close either sees the count and waits for the item,
        // or this sees Close and counts the item finished (not run).
        Interlocked.Increment(ref _accepted);
        if (Volatile.Read(ref _closed) != 0)
        {
            OnItemNotRun();
            _pool.ReleaseSlot();
            return false;
        }

        Enqueue(new QueuedWorkItem(callback, state, context));
        return true;
    }

    /// <summary>
    /// Accepts every item of <paramref name="batch"/> as <see cref="TryAccept"/> accepts one, or none: one reservation
    /// of the pool's slots, one count, one claim per ring the items land in, then as many turns as the group may hold
    /// and the batch can use.
    /// </summary>
    public bool TryAcceptBatch<TBatch>(scoped ref TBatch batch, bool waitForRoom)
        where TBatch : IBatchSource, allows ref struct
    {
        int count = batch.Count;
        if (_pool.IsShutDown || !TryReserveSlots(count, waitForRoom))
        {
            return false;
        }

        // Counted before the look at _closed, as in TryAccept.
        Interlocked.Add(ref _accepted, count);
        if (Volatile.Read(ref _closed) != 0)
        {
            long notRun = Interlocked.Add(ref _notRun, count); // before the read of _ran: see OnItemNotRun
            CheckDrained(Volatile.Read(ref _ran), notRun);
            _pool.ReleaseSlots(count);
            return false;
        }

        EnqueueBatch(ref batch);
        return true;
    }

    /// <summary>
    /// Accepts a continuation or task of the group's work (its SynchronizationContext, its TaskScheduler): like
    /// <see cref="TryAccept"/>, and also while a drain of the group or of the pool runs, so that async work accepted
    /// before the drain goes on in the group; refused once an abandon began (the group's or the pool's), once the
    /// pool's last look is over, or once the group has drained. It runs in <paramref name="context"/> (none: the
    /// worker's own; see <see cref="Async.ISchedulingTarget.TryEnqueue(object, object?, ExecutionContext?)"/>).
    /// </summary>
    /// <remarks>A continuation posted by one of the group's running items arrives while that item is pending, so before
    /// the group can drain; one that arrives from elsewhere (a timer) as the drain completes is either refused or counted
    /// before the group is found drained, and then runs before the drain's result (<see cref="DrainedMark"/>).</remarks>
    public bool TryAcceptContinuation(object callback, object? state, ExecutionContext? context)
    {
        if (_pool.IsClosedToContinuations)
        {
            return false;
        }

        // As in TryAccept: counted before the looks at _closed and _abandoning (full fences on both sides). Never refused
        // for room: an await chain must not wait on the queue it feeds.
        _pool.ForceReserveSlot();
        long accepted = Interlocked.Increment(ref _accepted);
        if (Volatile.Read(ref _closed) != 0 && (Volatile.Read(ref _abandoning) != 0 || (accepted & DrainedMark) != 0))
        {
            OnItemNotRun();
            _pool.ReleaseSlot();
            return false;
        }

        Enqueue(new QueuedWorkItem(callback, state, context));
        return true;
    }
}
