using System.Diagnostics;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using SlimPool.Diagnostics;
using SlimPool.Lifecycle;
using SlimPool.Queues;
using SlimPool.Scheduling;
using SlimPool.Workers;

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
internal sealed class GroupTurns : IWorkItem, IHandsBackItems
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

    /// <summary>
    /// Leaves the group whose item the current thread runs, if any, for an item that is not the group's; the group's item
    /// stays suspended on this thread meanwhile (<see cref="IsCurrentOrSuspendedHere"/>).
    /// </summary>
    /// <returns>The group left, to give to <see cref="Return"/>.</returns>
    public static GroupTurns? Leave()
    {
        if (PoolThreadLocals.Current is not { CurrentGroup: { } current } locals)
        {
            return null;
        }

        locals.CurrentGroup = null;
        Suspend(locals, current);
        return current;
    }

    /// <summary>Goes back into the group <see cref="Leave"/> left.</summary>
    public static void Return(GroupTurns? group)
    {
        if (group is not null)
        {
            PoolThreadLocals locals = PoolThreadLocals.Current!; // Leave found it holding the group
            Resume(locals);
            locals.CurrentGroup = group;
        }
    }

    /// <summary>Whether the current thread is running one of this group's items.</summary>
    public bool IsCurrent => PoolThreadLocals.Current?.CurrentGroup == this;

    /// <summary>
    /// Whether the current thread runs one of this group's items, or runs something inside one it left suspended (an
    /// item run inline or by a Dispose, another group's turn): a Send to the group from there must run inline, since the
    /// group's turn cannot go on while this thread waits.
    /// </summary>
    public bool IsCurrentOrSuspendedHere
    {
        get
        {
            if (PoolThreadLocals.Current is not { } locals)
            {
                return false;
            }

            if (locals.CurrentGroup == this)
            {
                return true;
            }

            GroupTurns?[]? suspended = locals.Suspended;
            for (int i = 0; i < locals.SuspendedCount; i++)
            {
                if (suspended![i] == this)
                {
                    return true;
                }
            }

            return false;
        }
    }

    /// <summary>
    /// Runs <paramref name="action"/> on this thread as the group's own work while one of its items is suspended here
    /// (<see cref="IsCurrentOrSuspendedHere"/>): in the group, under its SynchronizationContext, as it would run called
    /// from that item itself; the group whose item this thread runs now, if any, is suspended meanwhile, and it and the
    /// thread's context come back after.
    /// </summary>
    public void RunReentered(Action<object?> action, object? state)
    {
        Debug.Assert(IsCurrentOrSuspendedHere, "re-entered only from under one of the group's own items");
        PoolThreadLocals locals = PoolThreadLocals.Current!; // it holds the suspended item
        Outer outer = Enter(locals);
        try
        {
            action(state);
        }
        finally
        {
            Exit(locals, outer);
        }
    }

    // What Enter replaced on the thread, for Exit to put back: the group whose item the thread ran, now suspended, and
    // the thread's SynchronizationContext.
    private readonly record struct Outer(GroupTurns? Group, SynchronizationContext? Context);

    // Makes this the group whose item the current thread runs, under the group's SynchronizationContext; the group whose
    // item it ran, if any, stays suspended on it until Exit. Nothing between the two may throw before the try that
    // ends with Exit.
    private Outer Enter(PoolThreadLocals locals)
    {
        var outer = new Outer(locals.CurrentGroup, ThreadContexts.SynchronizationContextOf(locals.Thread));
        locals.CurrentGroup = this;
        if (outer.Group is not null)
        {
            Suspend(locals, outer.Group);
        }

        ThreadContexts.SetSynchronizationContext(locals.Thread, _group.SynchronizationContext);
        return outer;
    }

    private static void Exit(PoolThreadLocals locals, in Outer outer)
    {
        if (outer.Group is not null)
        {
            Resume(locals);
        }

        locals.CurrentGroup = outer.Group;
        ThreadContexts.SetSynchronizationContext(locals.Thread, outer.Context);
    }

    // The groups whose items this thread left suspended, innermost last: pushed by Leave and by a turn run inside another
    // group's item (Execute), popped as they return. Touched only on those nested paths.
    private static void Suspend(PoolThreadLocals locals, GroupTurns group)
    {
        GroupTurns?[] suspended = locals.Suspended ??= new GroupTurns?[4];
        if (locals.SuspendedCount == suspended.Length)
        {
            Array.Resize(ref locals.Suspended, suspended.Length * 2);
        }

        locals.Suspended![locals.SuspendedCount++] = group;
    }

    private static void Resume(PoolThreadLocals locals) => locals.Suspended![--locals.SuspendedCount] = null;

    /// <summary>The number of items queued and not yet started.</summary>
    public int QueuedCount => Volatile.Read(ref _queue)?.Count ?? 0;

    /// <summary>Whether the group holds a queue (it drops it when a turn finds it empty).</summary>
    public bool HasQueue => Volatile.Read(ref _queue) is not null;

    /// <summary>
    /// The number of items accepted and not yet finished or handed back; a running turn adds the items it ran once a
    /// quantum, so this may count up to a quantum of them as pending until then.
    /// </summary>
    public long PendingCount
    {
        get
        {
            // The finished counts first: every count only grows, so the difference is never negative.
            long finished = Volatile.Read(ref _ran) + Volatile.Read(ref _notRun);
            return (Volatile.Read(ref _accepted) & ~DrainedMark) - finished;
        }
    }

    /// <summary>The number of items run (those that threw and those skipped as cancelled included).</summary>
    public long CompletedCount => Volatile.Read(ref _ran);

    /// <summary>Completes when the group is closed and every accepted item has run or been handed back; only after <see cref="Close"/>.</summary>
    /// <remarks>A caller that finds the group closed by another thread's <see cref="Close"/> may come before that call
    /// installs the signal (right after its exchange); it waits for those few steps.</remarks>
    public Task Drained
    {
        get
        {
            TaskCompletionSource? drained = Volatile.Read(ref _drained);
            if (drained is null)
            {
                Debug.Assert(IsClosed, "the drained signal is read only after Close");
                var spinner = default(SpinWait);
                while ((drained = Volatile.Read(ref _drained)) is null)
                {
                    spinner.SpinOnce();
                }
            }

            return drained.Task;
        }
    }

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
        !_pool.IsShutDown && _pool.TryReserveSlot(waitForRoom) && AcceptReserved(callback, state, _pool.CaptureContextToFlow());

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
        if (_pool.IsShutDown || !_pool.TryReserveSlots(count, waitForRoom))
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

    /// <summary>Stops accepting items; true for the call that closed it.</summary>
    public bool Close()
    {
        if (Interlocked.Exchange(ref _closed, 1) != 0)
        {
            return false;
        }

        // After the exchange (a full fence): pairs with the increment-then-look of TryAccept and CheckDrained. A group
        // with nothing pending is marked drained and gets the shared completed signal; otherwise a signal of its own,
        // installed before the second look, so that either this look or the last item's CheckDrained marks and completes
        // it (or installs the shared one first, which the compare-and-swap then keeps).
        if (TryMarkIfDrained())
        {
            SignalDrained();
            return true;
        }

        Interlocked.CompareExchange(ref _drained, new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously), null);
        if (TryMarkIfDrained())
        {
            SignalDrained();
        }

        return true;
    }

    /// <summary>
    /// The group's abandon (after <see cref="Close"/>): turns stop taking items and the queued ones are added to
    /// <paramref name="abandoned"/>. Items queued by producers that raced the close are run afterwards.
    /// </summary>
    public void Abandon(List<AbandonedWorkItem> abandoned)
    {
        Interlocked.Exchange(ref _abandoning, 1);
        while (TryTake(out QueuedWorkItem item))
        {
            ShutdownCoordinator.HandBack(item, abandoned);
            OnItemNotRun();
        }

        // A turn that ended during the sweep did not look at the queue again (EndTurn), nor drop it, so do both here,
        // after a full fence: an item that turn would have seen is seen now and gets a turn; an empty queue goes, as
        // that turn's end would have dropped it (a drop is safe at any moment).
        Interlocked.Exchange(ref _swept, 1);
        if (!IsQueueEmpty)
        {
            if (TryTakeTurn(PublisherOne, out long seen))
            {
                PublishTaken(preferLocal: false);
                return;
            }

            WaitForPublishedTurn(seen); // the items are the held turns' once one is published
        }

        DropQueueIfEmpty();
    }

    /// <summary>
    /// One turn: runs the group's items on this thread until the queue is empty or the quantum is spent. On one of the
    /// pool's workers, the turn then runs the next group's turn if that is what the worker would take next
    /// (<see cref="SlimThreadPool.TryTakeNextTurn"/>), and so on.
    /// </summary>
    public void Execute()
    {
        // Everything the turn needs of its thread comes from one thread-local read (PoolThreadLocals).
        PoolThreadLocals locals = PoolThreadLocals.GetOrCreate();
        WorkerState? worker = locals.StateOn(_pool); // where the pool counts this turn's items; null off its workers

        // Only a turn the worker's loop runs itself is an item of the loop's: its items get the worker's name and
        // priority back after them, as the loop's items do, and it takes the next turn. One run inside another item (a
        // Dispose's, a shutdown's leftovers, a late producer's on another pool's worker) leaves the thread to that item,
        // whose name and priority they are, and returns to it; the loop's next take must wait for that item.
        bool loopItem = worker is not null && ReferenceEquals(locals.LoopItem, this);
        WorkerThreadIdentity? identity = loopItem ? locals.Identity : null;
        ExecuteTurn(locals, worker, identity);
        if (loopItem)
        {
            while (_pool.TryTakeNextTurn(locals) is { } next)
            {
                next.ExecuteTurn(locals, worker, identity);
            }
        }
    }

    private void ExecuteTurn(PoolThreadLocals locals, WorkerState? worker, WorkerThreadIdentity? identity)
    {
        // The slow-item watch names each item with the group, and the outer item again after (a turn run inside an item,
        // by a Dispose on a worker).
        WorkerState? named = _pool.SlowItems is null ? null : worker;
        var outerItem = named?.EnterNested(this, null) ?? default;
        named?.SetRunningGroup(_group);
        Outer outer = Enter(locals); // a turn run inside another group's item suspends that one until Exit
        try
        {
            RunTurn(locals, worker, identity);
        }
        finally
        {
            named?.RestoreRunning(outerItem);
            Exit(locals, outer);
            ItemAccounting.MarkNotAUserItem(locals); // the turn counted the items it ran
        }
    }

    /// <summary>The pool abandoned this turn before it ran: it gives the turn back and hands back the group's queued items.</summary>
    public void HandBack(List<AbandonedWorkItem> abandoned)
    {
        Interlocked.Add(ref _turns, TurnEnded);
        HandBackQueued(abandoned);
    }

    /// <summary>
    /// The pool's abandon: hands back the items queued now, whether or not a turn is queued or running (a running turn
    /// stops at its next item, <see cref="SlimThreadPool.IsHandingBack"/>).
    /// </summary>
    public void HandBackQueued(List<AbandonedWorkItem> abandoned)
    {
        while (TryTake(out QueuedWorkItem item))
        {
            ShutdownCoordinator.HandBack(item, abandoned);
            OnItemNotRun();
        }
    }

    // A quantum (TurnQuantum) ends after MaxItemsPerTurn items or MaxTurnDuration, whichever comes first.
    // A spent quantum gives the worker back only if the pool has other items queued (another group's turn among them):
    // with nothing else waiting, moving the turn to the back of an empty queue would only move it to another core.
    // Items run are added to _ran once a quantum rather than once an item, and before the turn yields or ends, so the
    // count trails by at most one quantum: with an interlocked add, or as a serial group's turn ends with a plain store
    // (EndTurn).
    private void RunTurn(PoolThreadLocals locals, WorkerState? worker, WorkerThreadIdentity? identity)
    {
        var contexts = new ThreadContexts(locals.Thread, _group.SynchronizationContext);
        WorkItemRunner runner = _pool.Runner;
        WorkItemDurations durations = _pool.Durations;
        bool naming = _pool.SlowItems is not null; // the slow-item watch reads what each worker runs
        long counted = 0; // items run this turn and not yet added to _ran
        // A hint from the group's previous turn (TurnQuantum.IsShort): read and written by the turns only, a plain field;
        // two turns of a wider group may race on it, and either value is safe.
        var quantum = new TurnQuantum(_maxItemsPerTurn, _maxTurnTicks, _shortItems);
        naming &= worker is not null;

        // A blocking scope one of the group's items leaves open ends with that item, not with the turn (a pool item): on
        // whichever pool's worker runs the turn (a turn a late producer runs itself may run on another pool's worker,
        // whose scope an item may open).
        WorkerBlockingState? blocking = worker is not null ? worker.Blocking : locals.Blocking;

        // Whether a listener has the run-time histogram on, read once a turn (a listener that starts mid-turn samples from
        // the next one): a serial queue's items cost a turn each, and every read on that path shows.
        bool timing = worker is not null && durations.IsEnabled;
        while (true)
        {
            if (_pool.IsHandingBack)
            {
                // The pool is abandoning: keep the turn and queue it again, so the pool's shutdown hands the group's
                // items back with its own.
                AddRan(counted);
                KeepShortItems(quantum);
                _pool.Publisher.PublishAccepted(this, preferLocal: false, Priority);
                return;
            }

            if (IsSweeping || !TryTake(out QueuedWorkItem item))
            {
                KeepShortItems(quantum);
                bool again = EndTurn(counted, locals);
                counted = 0;
                if (!again)
                {
                    return;
                }

                continue;
            }

            quantum.OnItemTaken();
            if (naming)
            {
                worker!.SetRunning(item.StoredCallback, item.StoredState);
            }

            long sampledAt = timing ? durations.StartSample() : 0; // timed on workers only (WorkItemDurations)
            long scopesBefore = blocking?.Serial ?? 0;
            runner.Execute(item, contexts);
            identity?.Restore(); // the worker's name and priority, as after the loop's items
            if (blocking is not null && blocking.Serial != scopesBefore)
            {
                blocking.EndOfNestedItem(scopesBefore);
            }

            _pool.OnItemCompleted(worker);
            counted++;
            if (sampledAt != 0)
            {
                durations.Record(sampledAt, _group);
            }

            if (quantum.OnItemRan())
            {
                if (!IsQueueEmpty && _pool.HasQueuedWork)
                {
                    // Quantum spent with items waiting here and elsewhere: give the worker back, keeping the turn, which
                    // goes behind what the pool has queued (its shared queue, not this worker's own slot).
                    AddRan(counted);
                    KeepShortItems(quantum);
                    _pool.Publisher.PublishAccepted(this, preferLocal: false, Priority);
                    return;
                }

                AddRan(counted);
                counted = 0;
                quantum.Restart();
            }
        }
    }

    // Keeps the turn's verdict on its items for the group's next turn, before the turn is given back or queued again (the
    // next turn starts after either); stored only when it changed, since producers read this cache line.
    private void KeepShortItems(in TurnQuantum quantum)
    {
        if (quantum.IsShort != _shortItems)
        {
            _shortItems = quantum.IsShort;
        }
    }

    // The group's abandon has begun and not yet swept the queue: turns leave what is queued to the sweep.
    private bool IsSweeping => Volatile.Read(ref _abandoning) != 0 && Volatile.Read(ref _swept) == 0;

    // Whether the queue now in the field is missing or empty. A queue read before it was replaced is empty: it was
    // retired, which only an empty queue can be.
    private bool IsQueueEmpty => Volatile.Read(ref _queue) is not { IsEmpty: false };

    // Adds the `ran` items the turn ran since its last count and gives the turn back; true if this thread took it again
    // because an item is waiting (the turn then runs on).
    private bool EndTurn(long ran, PoolThreadLocals locals)
    {
        // The items the turn ran are added first. A serial group's turn is the only writer of _ran while it holds the
        // group's one turn (the next turn is taken after the decrement below, and sees this write through the turn's
        // hand-off), so it adds them with a plain store, and the decrement is the full fence between that store and
        // CheckDrained's look at _closed; a wider group's turns add with an interlocked add, as AddRan does.
        long ranNow = 0;
        if (ran != 0)
        {
            if (_maxConcurrency == 1)
            {
                ranNow = _ran + ran;
                Volatile.Write(ref _ran, ranNow);
            }
            else
            {
                ranNow = Interlocked.Add(ref _ran, ran);
            }
        }

        // The decrement (with the generation's increment, one add) is a full fence before the reads of _queue and of
        // its tail: it pairs with Enqueue's claim (a compare-and-swap) followed by its read of _turns. See the class
        // remarks.
        Interlocked.Add(ref _turns, TurnEnded);
        if (ran != 0)
        {
            CheckDrained(ranNow, Volatile.Read(ref _notRun));
        }

        if (IsSweeping)
        {
            return false; // Abandon looks at the queue once more after its sweep
        }

        if (!IsQueueEmpty)
        {
            if (TryTakeTurn(publisher: 0, out long seen))
            {
                return true; // runs on: no publish
            }

            // Another took the turn for the items seen: the worker leaves them once that turn is published, so that a
            // drain's workers do not leave before it (see the remarks).
            WaitForPublishedTurn(seen);
        }

        // The queue is empty: on one of the pool's workers it is kept until that worker parks or more other groups
        // ended a turn on it (DeferredQueueDrops), so a serial queue that empties between items is not remade for each;
        // elsewhere it is dropped now. Either is safe at any time, the turn held or not: a retire succeeds only on an
        // empty queue and makes every later enqueue into it fail.
        if (Volatile.Read(ref _queue) is not null)
        {
            if (locals.Pool == _pool && locals.QueueDrops is { } drops)
            {
                drops.Add(this);
            }
            else
            {
                DropQueueIfEmpty();
            }
        }

        return false;
    }

    /// <summary>
    /// Marks the group's queue drop as deferred by a worker; false if it already is (by this worker or another), and
    /// then the worker that holds it drops it. A race may let two workers hold it, which only drops it twice.
    /// </summary>
    public bool TryDeferDrop()
    {
        if (Volatile.Read(ref _dropDeferred) != 0)
        {
            return false;
        }

        Volatile.Write(ref _dropDeferred, 1);
        return true;
    }

    /// <summary>
    /// The deferred drop: clears the mark, then drops the queue if it is empty. The exchange is a full fence before the
    /// look at the queue, so a turn that ended on the queue and saw the mark still set ended before this look; if the
    /// queue holds items now, their turn ends after the clear and defers the drop again.
    /// </summary>
    public void DropDeferred()
    {
        Interlocked.Exchange(ref _dropDeferred, 0);
        DropQueueIfEmpty();
    }

    /// <summary>
    /// Retires the queue if it is empty and clears the field; a producer that meets the retired queue first clears it
    /// itself (Enqueue). Both compare-and-swap from this queue, which is never installed again, so neither clears a
    /// newer one. Safe from any thread at any time, a turn running or not (see the class remarks).
    /// </summary>
    public void DropQueueIfEmpty()
    {
        LockFreeQueue<CompactHeadAndTail>? queue = Volatile.Read(ref _queue);
        if (queue is not null && queue.TryRetire())
        {
            Interlocked.CompareExchange(ref _queue, null, queue);
        }
    }

    private void Enqueue(in QueuedWorkItem item)
    {
        LockFreeQueue<CompactHeadAndTail> queue = Volatile.Read(ref _queue) ?? InstallQueue();
        while (!queue.TryEnqueue(item))
        {
            // Retired between the read and the claim: the item is not in it. Clear the field for the retirer if it has
            // not yet (so that this does not spin on it), and enqueue into the queue that replaces it.
            Interlocked.CompareExchange(ref _queue, null, queue);
            queue = Volatile.Read(ref _queue) ?? InstallQueue();
        }

        // The claim in TryEnqueue was a compare-and-swap, a full fence, before this read of _turns: see the class remarks.
        // With every turn held, the holders take the item, once one of them is published.
        if (TryTakeTurn(PublisherOne, out long seen))
        {
            PublishTaken(preferLocal: true);
        }
        else
        {
            WaitForPublishedTurn(seen);
        }
    }

    // A batch goes into the queue the field holds, as Enqueue's item does; if that queue is retired part-way (its items
    // so far all taken: only an empty queue is retired), the rest follows into the queue that replaces it, in order. Then
    // it takes turns as Enqueue does, one for each item until the group holds all it may: each turn taken after every
    // item was claimed (the last claim a full fence) pairs with an ending turn's look as one item's does.
    private void EnqueueBatch<TBatch>(scoped ref TBatch batch)
        where TBatch : IBatchSource, allows ref struct
    {
        int count = batch.Count;
        int added = 0;
        LockFreeQueue<CompactHeadAndTail> queue = Volatile.Read(ref _queue) ?? InstallQueue();
        while ((added += queue.EnqueueBatchUntilRetired(ref batch, added, count - added)) < count)
        {
            Interlocked.CompareExchange(ref _queue, null, queue);
            queue = Volatile.Read(ref _queue) ?? InstallQueue();
        }

        Debug.Assert(count > 0, "an empty batch is accepted without a look at the queue");
        int taken = 0;
        long seen;
        while (TryTakeTurn(PublisherOne, out seen))
        {
            PublishTaken(preferLocal: true);
            if (++taken == count)
            {
                return;
            }
        }

        // A turn this call published covers every item of the batch; with none, the batch waits as Enqueue's item does.
        if (taken == 0)
        {
            WaitForPublishedTurn(seen);
        }
    }

    // A producer that took a turn publishes it: QueueAccepted puts it where the pool's workers and a drain look, with a
    // full fence after; then the producer leaves the publishers' count (an add, a full fence), so a producer that waits
    // for the publish (WaitForPublishedTurn) sees the turn there once it sees the add. The add does not move the
    // generation: by then the turn may have run and ended already (its end moved it), and a waiter that took this add
    // for a turn's end could return on a later producer's turn, still unpublished. The add comes before the publish's
    // finish, which wakes a worker and, past the pool's finish, runs the turn on this thread: a producer on this thread
    // inside that turn must not wait for this very publish. Should the enqueue throw (a custom queue, out of memory),
    // the producer still leaves the count, so that no later call waits for a publish that will never come; the turn
    // stays held, since the enqueue may have put it where the workers look before it threw (a second turn of a serial
    // group must never be taken while it may run).
    private void PublishTaken(bool preferLocal)
    {
        IAcceptedWorkPublisher publisher = _pool.Publisher;
        bool queued;
        try
        {
            queued = publisher.QueueAccepted(this, preferLocal, Priority);
        }
        catch
        {
            Interlocked.Add(ref _turns, -PublisherOne);
            throw;
        }

        long left = Interlocked.Add(ref _turns, -PublisherOne);
        Debug.Assert(PublishersIn(left) < PublishersIn(left + PublisherOne), "this producer was counted a publisher");
        publisher.FinishAccepted(queued);
    }

    // Called with the word read after an item was seen in the queue (a producer's claim, an ending turn's look) and a
    // take refused: leaves that item to the turns held once one of them is published (see the remarks, "A queue call
    // returns behind a published turn"). It returns at once when the word shows more turns than publishers; otherwise
    // it waits for a read that does, or for a later generation (a turn ended since, and its look saw the item or found it
    // taken). The wait is another producer's enqueue, longer only while that producer is preempted inside it.
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private void WaitForPublishedTurn(long seen)
    {
        if (TurnsIn(seen) <= PublishersIn(seen))
        {
            WaitForPublish(seen & GenerationMask);
        }
    }

    // The spin sleeps now and then (so a publisher preempted by this thread gets to run), and a sleep throws at a
    // Thread.Interrupt: the item is accepted by now, so the interrupt is kept for the caller's next wait instead.
    [MethodImpl(MethodImplOptions.NoInlining)]
    private void WaitForPublish(long generation)
    {
        var spinner = default(SpinWait);
        bool interrupted = false;
        while (true)
        {
            try
            {
                spinner.SpinOnce();
            }
            catch (ThreadInterruptedException)
            {
                interrupted = true;
            }

            long word = Volatile.Read(ref _turns);
            if (TurnsIn(word) > PublishersIn(word) || (word & GenerationMask) != generation)
            {
                break;
            }
        }

        if (interrupted)
        {
            Thread.CurrentThread.Interrupt();
        }
    }

    private static int TurnsIn(long word) => (int)(word & TurnMask);

    private static int PublishersIn(long word) => (int)((word >> 32) & 0xFFFF);

    // Installs a fresh queue where there is none; the producer that loses the race uses the winner's.
    private LockFreeQueue<CompactHeadAndTail> InstallQueue()
    {
        var fresh = new LockFreeQueue<CompactHeadAndTail>(InitialQueueLength);
        return Interlocked.CompareExchange(ref _queue, fresh, null) ?? fresh;
    }

    // Takes the group's oldest queued item, giving back the pool capacity slot it held. Every item is in the queue the
    // field holds (see the remarks), so a missing queue means an empty one.
    private bool TryTake(out QueuedWorkItem item)
    {
        LockFreeQueue<CompactHeadAndTail>? queue = Volatile.Read(ref _queue);
        if (queue is not null && queue.TryDequeue(out item))
        {
            _pool.ReleaseSlot();
            return true;
        }

        item = default;
        return false;
    }

    // Takes a turn below the limit; a producer that will publish it counts itself a publisher in the same swap
    // (PublisherOne), a turn that runs on does not (0). Either way seen is the word last read.
    private bool TryTakeTurn(long publisher, out long seen)
    {
        long turns = Volatile.Read(ref _turns);
        while (TurnsIn(turns) < _maxConcurrency)
        {
            long found = Interlocked.CompareExchange(ref _turns, turns + 1 + publisher, turns);
            if (found == turns)
            {
                seen = found;
                return true;
            }

            turns = found;
        }

        seen = turns;
        return false;
    }

    // Adds a turn's items to _ran (a full fence), then looks at _closed; see CheckDrained.
    private void AddRan(long count)
    {
        if (count != 0)
        {
            CheckDrained(Interlocked.Add(ref _ran, count), Volatile.Read(ref _notRun));
        }
    }

    // The increment first, then the read of the other count: CheckDrained's pairing needs each side to change its own
    // count (a full fence) before it reads the other's. Read first, a sweep's last item and a turn's last ones could
    // each miss the other's change, and nothing would signal (GroupDrained.pml, BROKEN_ORDER).
    private void OnItemNotRun()
    {
        long notRun = Interlocked.Increment(ref _notRun);
        CheckDrained(Volatile.Read(ref _ran), notRun);
    }

    // Called after a count's change and a full fence (the change itself, or a turn's decrement after a serial turn's
    // plain store) and before the look at _closed, as in TryAccept: either Close sees this
    // item finished, or this sees the close. Nothing is pending when the two finished counts, both read before the
    // accepted count, add up to it: they are at most the counts at the later of their reads, whose sum is at most the
    // items accepted then, which is at most the accepted count read after; equality makes all three equal. The idle
    // waiters pair the same way (IdleWaiters): this reads whether anybody waits after the increment's fence.
    private void CheckDrained(long ran, long notRun)
    {
        bool closed = Volatile.Read(ref _closed) != 0;
        IdleWaiters? waiters = Volatile.Read(ref _idleWaiters);
        long registered = waiters is not null && waiters.Any ? waiters.Registered : 0; // before the accepted count's read
        long accepted = Volatile.Read(ref _accepted);
        if ((closed || registered != 0) && ran + notRun == (accepted & ~DrainedMark))
        {
            if (closed && TryMarkDrained(accepted))
            {
                SignalDrained();
            }

            if (registered != 0)
            {
                waiters!.CompleteUpTo(registered); // only those registered before the verdict (IdleWaiters)
            }
        }
    }

    /// <summary>
    /// A task that completes once the group holds nothing accepted and unfinished: every item it accepted ran or came back
    /// (an async flow between two steps, whose next step is not yet queued, counts as nothing).
    /// </summary>
    public Task WaitForIdleAsync(CancellationToken cancellationToken)
    {
        IdleWaiters waiters = Volatile.Read(ref _idleWaiters) ?? Interlocked.CompareExchange(ref _idleWaiters, new IdleWaiters(), null) ?? _idleWaiters!;
        return waiters.WaitAsync(() => PendingCount == 0, cancellationToken);
    }

    // Close's look: the finished counts first, then the accepted count (see PendingCount); marks the group drained if
    // nothing is pending.
    private bool TryMarkIfDrained()
    {
        long finished = Volatile.Read(ref _ran) + Volatile.Read(ref _notRun);
        long accepted = Volatile.Read(ref _accepted);
        return finished == (accepted & ~DrainedMark) && TryMarkDrained(accepted);
    }

    // Marks the closed group drained at `accepted`, the count that made it so: false if an item was counted since (a
    // continuation: it runs, and its finish looks again). Marked already, it stays so.
    private bool TryMarkDrained(long accepted) =>
        (accepted & DrainedMark) != 0 || Interlocked.CompareExchange(ref _accepted, accepted | DrainedMark, accepted) == accepted;

    // The group has drained: completes its signal, or installs the shared completed one where Close installed none.
    private void SignalDrained()
    {
        TaskCompletionSource drained = Volatile.Read(ref _drained) ?? Interlocked.CompareExchange(ref _drained, s_drained, null) ?? s_drained;
        drained.TrySetResult();
    }
}
