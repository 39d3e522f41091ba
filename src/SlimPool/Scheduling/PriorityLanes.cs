using System.Collections.Concurrent;
using System.Diagnostics;
using SlimPool.Lifecycle;
using SlimPool.Queues;
using SlimPool.Workers;

namespace SlimPool.Scheduling;

/// <summary>
/// The pool's <see cref="WorkItemPriority.High"/> and <see cref="WorkItemPriority.Low"/> items: each waits in its lane,
/// and a ticket for it waits in the pool's queue. Created on the first such item; a pool that never sees one never
/// pays for it beyond a null test per item a worker takes.
/// </summary>
/// <remarks>
/// <para><b>Tickets.</b> A lane's items are announced by tickets (<see cref="HighTicket"/> or <see cref="LowTicket"/>,
/// shared objects) queued on the pool like any item, so the pool's wake-ups, starvation guard, back-pressure and
/// shutdown see lane items as they see its own. A ticket, when run, runs one item of its lane if one is left. Every Low
/// item brings one ticket. A worker also takes <see cref="WorkItemPriority.High"/> items straight from their lane before
/// it looks at the queue (<see cref="TryTakeHigh"/>), which leaves a ticket with nothing to run; so a High item brings a
/// ticket only while no more tickets are outstanding than High items are counted, and tickets never pile up past the
/// items that were waiting (a bounded pool stays bounded).</para>
/// <para><b>The High word.</b> <c>_highState</c> holds the High items counted (low 32 bits) and the High tickets outstanding
/// (high 32 bits: queued, or dequeued and not yet through their exchange), changed only by compare-and-swap of the whole
/// word, so tickets &gt;= items always holds: an add raises both when tickets &lt;= items (else only the items: a ticket
/// outstanding covers it), a direct take lowers the items, a ticket lowers the tickets and, if any is counted, the items.
/// Hence while an item is counted, a ticket for it is queued, running, or about to be published by its producer.
/// Two separate counts are not enough: two adds that each read the other's ticket leave an item with none
/// (PriorityLanes.pml, -DTWO_WORDS, which Spin rejects).</para>
/// <para><b>The lane holds only counted items.</b> An add counts its item first and enqueues it after, so whoever claims
/// a count dequeues the lane's oldest item, which may be one counted later than its claim (it waits, at worst, for the
/// producer of the claimed count to finish its enqueue). Claims therefore take items, not particular items: a ticket
/// runs the lane's oldest, not the one it was queued for. Two consequences the shutdown relies on: claiming every count
/// empties the lane of every item whose add has begun its enqueue (<see cref="TryTakeLeftover"/>); and the tickets queued
/// before a shutdown can take the item of a producer racing it (counted, its ticket not yet published), so the
/// shutdown's looks take from the lanes directly as well as through the tickets, or an item accepted before the shutdown
/// would be left for that producer to run after the shutdown returned (PriorityLanesShutdown.pml, -DTICKETS_ONLY;
/// counting after the enqueue, -DENQUEUE_FIRST, lets a claim take an uncounted item and strand a counted one).</para>
/// <para><b>Aging.</b> A low ticket that finds other work waiting queues itself again, at the back of the shared queue,
/// until the oldest low item has waited <c>maxLowDelay</c>; then it runs that item. Other work waiting means the
/// queue holds more entries than there are other low tickets, or a high item waits: an estimate, which can only run a
/// low item early or defer it once more. Tickets, not items, since a ticket whose item the shutdown took straight from
/// the lane is no other work (see <see cref="ShouldDeferLow"/>).</para>
/// </remarks>
internal sealed class PriorityLanes
{
    private const long TicketUnit = 1L << 32; // one High ticket in _highState

    private readonly IAcceptedWorkPublisher _publisher;
    private readonly IWorkQueue _queue;
    private readonly ShutdownCoordinator _shutdown;     // read by a Low ticket (ShouldDeferLow)
    private readonly SlimThreadPool? _namingOn; // the pool whose slow-item watch reads what its workers run; null: none
    private readonly LockFreeQueue<PaddedHeadAndTail> _high = new();
    private readonly ConcurrentQueue<LowEntry> _low = new();
    private readonly long _maxLowDelayTicks;
    private long _highState; // High items counted | High tickets outstanding << 32 (see the remarks): read before every look
    private int _lowCount;   // Low items in the lane (after their enqueue)
    private int _lowTickets; // Low tickets outstanding: counted by the add that brings one, until one runs or is handed back

    /// <summary>Creates the lanes of a pool whose queue is <paramref name="queue"/>.</summary>
    /// <param name="publisher">Where a deferred Low ticket goes back to the queue.</param>
    /// <param name="queue">The pool's queue, whose length a Low ticket weighs.</param>
    /// <param name="shutdown">The pool's shutdown: once it has begun, a Low ticket weighs the queue alone.</param>
    /// <param name="maxLowDelay">How long a Low item may be deferred (<see cref="SlimThreadPoolOptions.LowPriorityMaxDelay"/>).</param>
    /// <param name="namingOn">The pool whose workers name the item they run for its slow-item watch; null when it has none.</param>
    public PriorityLanes(IAcceptedWorkPublisher publisher, IWorkQueue queue, ShutdownCoordinator shutdown, TimeSpan maxLowDelay, SlimThreadPool? namingOn)
    {
        _publisher = publisher;
        _queue = queue;
        _shutdown = shutdown;
        _namingOn = namingOn;
        _maxLowDelayTicks = Math.Max(1, (long)(maxLowDelay.TotalSeconds * Stopwatch.Frequency));
        HighTicket = new Ticket(this, WorkItemPriority.High);
        LowTicket = new Ticket(this, WorkItemPriority.Low);
    }

    /// <summary>The ticket queued for each high item.</summary>
    public IWorkItem HighTicket { get; }

    /// <summary>The ticket queued for each low item.</summary>
    public IWorkItem LowTicket { get; }

    /// <summary>
    /// Adds <paramref name="item"/> to its lane; true when the caller must queue a ticket for it (<see cref="TicketFor"/>),
    /// false when a High ticket outstanding covers it (the caller gives back the capacity slot it took for the item).
    /// </summary>
    public bool Add(WorkItemPriority priority, in QueuedWorkItem item)
    {
        if (priority != WorkItemPriority.High)
        {
            Interlocked.Increment(ref _lowTickets); // the ticket its caller publishes
            _low.Enqueue(new LowEntry(item, Stopwatch.GetTimestamp()));
            Interlocked.Increment(ref _lowCount);
            return true;
        }

        // Counted before it is enqueued, so the lane never holds an item no count stands for (see the remarks); a
        // claimer of this count waits in DequeueClaimedHigh until the enqueue below is done.
        long state = Volatile.Read(ref _highState);
        while (true)
        {
            bool ticket = Tickets(state) <= Items(state);
            long next = state + 1 + (ticket ? TicketUnit : 0);
            long seen = Interlocked.CompareExchange(ref _highState, next, state);
            if (seen == state)
            {
                _high.Enqueue(item);
                return ticket;
            }

            state = seen;
        }
    }

    /// <summary>The ticket for an item of <paramref name="priority"/>.</summary>
    public IWorkItem TicketFor(WorkItemPriority priority) => priority == WorkItemPriority.High ? HighTicket : LowTicket;

    /// <summary>Takes the oldest high item, if any: what a worker runs before anything in the queue.</summary>
    public bool TryTakeHigh(out QueuedWorkItem item)
    {
        long state = Volatile.Read(ref _highState);
        while (Items(state) != 0)
        {
            long seen = Interlocked.CompareExchange(ref _highState, state - 1, state);
            if (seen == state)
            {
                item = DequeueClaimedHigh();
                return true;
            }

            state = seen;
        }

        item = default;
        return false;
    }

    // A High ticket's exchange: one ticket less and, if one is counted, one item claimed.
    private bool TryTakeHighForTicket(out QueuedWorkItem item)
    {
        long state = Volatile.Read(ref _highState);
        while (true)
        {
            bool claim = Items(state) != 0;
            long next = state - TicketUnit - (claim ? 1 : 0);
            long seen = Interlocked.CompareExchange(ref _highState, next, state);
            if (seen == state)
            {
                item = claim ? DequeueClaimedHigh() : default;
                return claim;
            }

            state = seen;
        }
    }

    // A claimed count has an item in the lane or one on its way: its producer counted it and is enqueuing it.
    private QueuedWorkItem DequeueClaimedHigh()
    {
        QueuedWorkItem item;
        var spinner = default(UninterruptedSpin);
        while (!_high.TryDequeue(out item))
        {
            spinner.SpinOnce();
        }

        return item;
    }

    private static int Items(long state) => (int)state;

    private static int Tickets(long state) => (int)(state >> 32);

    /// <summary>
    /// Whether neither lane holds an item (a High count claimed is as good as taken: its claimer waits for the item). An
    /// item whose add has begun its enqueue reads as held: a High item is counted before it is enqueued, a Low one
    /// enqueued before it is counted. Read by the drain's workers before they leave and by the idle test, since a lane's
    /// item may have no ticket queued for it (see the remarks).
    /// </summary>
    public bool IsEmpty => Items(Volatile.Read(ref _highState)) == 0 && _low.IsEmpty;

    /// <summary>Whether a High item is counted: a worker's next look would take it before anything queued.</summary>
    public bool HasHigh => Items(Volatile.Read(ref _highState)) != 0;

    /// <summary>
    /// Takes any item left in a lane, High first, without its ticket: what the shutdown's looks do after they have taken
    /// the queue's tickets (see the remarks). The tickets left behind find nothing when they run or are handed back.
    /// </summary>
    public bool TryTakeLeftover(out QueuedWorkItem item) => TryTakeHigh(out item) || TryTakeLow(out item);

    private bool TryTakeLow(out QueuedWorkItem item)
    {
        if (_low.TryDequeue(out LowEntry entry))
        {
            Interlocked.Decrement(ref _lowCount);
            item = entry.Item;
            return true;
        }

        item = default;
        return false;
    }

    // A low ticket's decision (the ticket has already counted itself out of _lowTickets): defer while the oldest low item
    // is young and other work waits, that is, while the queue holds more than the other Low tickets. Tickets, not items:
    // once the pool stops, a drain's workers and the shutdown's looks take Low items straight from the lane, so a ticket
    // can land with no item of its own; weighed against the items, such surplus tickets read as other work, and the
    // tickets deferred each other, spinning a worker, for the whole delay. And once the pool has shut down, a High item
    // counted is no other work unless its ticket is queued: the shutdown's looks and a late producer take the queue
    // before the lanes, so a racer's High item whose ticket is not yet published kept the ticket deferring, taken
    // straight back, for the whole delay (a worker takes High items first, so it never meets this).
    private bool ShouldDeferLow()
    {
        if (!_low.TryPeek(out LowEntry oldest) || Stopwatch.GetTimestamp() - oldest.QueuedAt >= _maxLowDelayTicks)
        {
            return false;
        }

        return (Items(Volatile.Read(ref _highState)) != 0 && !_shutdown.IsShutDown) || _queue.Count > Volatile.Read(ref _lowTickets);
    }

    // Runs a lane item inside its ticket, in the context it was queued with; the worker restores the thread afterwards.
    private void Run(in QueuedWorkItem item)
    {
        if (_namingOn is not null)
        {
            CurrentWorker.StateOn(_namingOn)?.SetRunning(item.StoredCallback, item.StoredState); // named as itself, not as the ticket
        }

        if (item.Context is { } context)
        {
            ExecutionContext.Restore(context);
        }

        item.Invoke();
    }

    private readonly record struct LowEntry(QueuedWorkItem Item, long QueuedAt);

    private sealed class Ticket(PriorityLanes lanes, WorkItemPriority priority) : IWorkItem, IHandsBackItems
    {
        // A ticket that runs its lane's item counts as that item; one that finds nothing, or defers, counts as nothing.
        public void Execute()
        {
            if (priority == WorkItemPriority.High)
            {
                if (lanes.TryTakeHighForTicket(out QueuedWorkItem high))
                {
                    lanes.Run(high);
                    return;
                }

                ItemAccounting.MarkNotAUserItem();
                return;
            }

            Interlocked.Decrement(ref lanes._lowTickets);
            if (lanes.ShouldDeferLow())
            {
                Interlocked.Increment(ref lanes._lowTickets); // queued again
                // Behind the other work, and this worker goes for that work next, wherever it is: a worker that took
                // the ticket straight back from the shared queue would spin on it for the whole delay while the other
                // work waits in a busy sibling's slot or ring.
                lanes._publisher.PublishAccepted(this, preferLocal: false);
                (lanes._queue as WorkStealingWorkQueue)?.LookAtSiblingsFirst();
                ItemAccounting.MarkNotAUserItem();
                return;
            }

            if (lanes.TryTakeLow(out QueuedWorkItem low))
            {
                lanes.Run(low);
                return;
            }

            ItemAccounting.MarkNotAUserItem();
        }

        public void HandBack(List<AbandonedWorkItem> abandoned)
        {
            if (priority != WorkItemPriority.High)
            {
                Interlocked.Decrement(ref lanes._lowTickets);
            }

            bool taken = priority == WorkItemPriority.High ? lanes.TryTakeHighForTicket(out QueuedWorkItem item) : lanes.TryTakeLow(out item);
            if (taken)
            {
                ShutdownCoordinator.HandBack(item, abandoned);
            }
        }
    }
}
