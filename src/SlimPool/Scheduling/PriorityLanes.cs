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
/// <para><b>Tickets.</b> Every item added to a lane is followed by one ticket (<see cref="HighTicket"/> or
/// <see cref="LowTicket"/>, shared objects) queued on the pool like any item, so the pool's wake-ups, starvation guard,
/// back-pressure and shutdown see lane items exactly as they see its own. A ticket, when run, runs one item of its lane
/// if one is left. A worker also takes <see cref="WorkItemPriority.High"/> items straight from their lane before it looks at
/// the queue (<see cref="TryTakeHigh"/>); that leaves a ticket with nothing to run. Each lane therefore holds at most as
/// many items as it has tickets outstanding (a take without a ticket removes an item and no ticket; a ticket that finds
/// nothing finds the lane empty), so while an item waits in a lane, a ticket for it waits in the queue or is
/// running.</para>
/// <para><b>Aging.</b> A low ticket that finds other work waiting queues itself again, at the back of the shared queue,
/// until the oldest low item has waited <c>maxLowDelay</c>; then it runs that item. Other work waiting means the
/// queue holds more entries than there are low items, or a high item waits: an estimate, which can only run a low item
/// early or defer it once more.</para>
/// </remarks>
internal sealed class PriorityLanes
{
    private readonly SlimThreadPool _pool;
    private readonly IWorkQueue _queue;
    private readonly LockFreeWorkQueue _high = new();
    private readonly ConcurrentQueue<LowEntry> _low = new();
    private readonly long _maxLowDelayTicks;
    private int _highCount; // items in _high: a worker reads it before every look at the queue, so it is read-mostly
    private int _lowCount;

    public PriorityLanes(SlimThreadPool pool, IWorkQueue queue, TimeSpan maxLowDelay)
    {
        _pool = pool;
        _queue = queue;
        _maxLowDelayTicks = Math.Max(1, (long)(maxLowDelay.TotalSeconds * Stopwatch.Frequency));
        HighTicket = new Ticket(this, WorkItemPriority.High);
        LowTicket = new Ticket(this, WorkItemPriority.Low);
    }

    /// <summary>The ticket queued for each high item.</summary>
    public IWorkItem HighTicket { get; }

    /// <summary>The ticket queued for each low item.</summary>
    public IWorkItem LowTicket { get; }

    /// <summary>Adds <paramref name="item"/> to its lane; the caller then queues <see cref="TicketFor"/> it.</summary>
    public void Add(WorkItemPriority priority, in QueuedWorkItem item)
    {
        if (priority == WorkItemPriority.High)
        {
            _high.Enqueue(item);
            Interlocked.Increment(ref _highCount);
        }
        else
        {
            _low.Enqueue(new LowEntry(item, Stopwatch.GetTimestamp()));
            Interlocked.Increment(ref _lowCount);
        }
    }

    /// <summary>The ticket for an item of <paramref name="priority"/>.</summary>
    public IWorkItem TicketFor(WorkItemPriority priority) => priority == WorkItemPriority.High ? HighTicket : LowTicket;

    /// <summary>Takes the oldest high item, if any: what a worker runs before anything in the queue.</summary>
    public bool TryTakeHigh(out QueuedWorkItem item)
    {
        if (Volatile.Read(ref _highCount) != 0 && _high.TryDequeue(out item))
        {
            Interlocked.Decrement(ref _highCount);
            return true;
        }

        item = default;
        return false;
    }

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

    // A low ticket's decision: defer while the oldest low item is young and other work waits.
    private bool ShouldDeferLow()
    {
        if (!_low.TryPeek(out LowEntry oldest) || Stopwatch.GetTimestamp() - oldest.QueuedAt >= _maxLowDelayTicks)
        {
            return false;
        }

        return Volatile.Read(ref _highCount) != 0 || _queue.Count > Volatile.Read(ref _lowCount) - 1;
    }

    // Runs a lane item inside its ticket, in the context it was queued with; the worker restores the thread afterwards.
    private static void Run(in QueuedWorkItem item)
    {
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
                if (lanes.TryTakeHigh(out QueuedWorkItem high))
                {
                    Run(high);
                    return;
                }

                ItemAccounting.MarkNotAUserItem();
                return;
            }

            if (lanes.ShouldDeferLow())
            {
                // Behind the other work, and this worker goes for that work next, wherever it is: a worker that took
                // the ticket straight back from the shared queue would spin on it for the whole delay while the other
                // work waits in a busy sibling's deque.
                lanes._pool.PublishAccepted(this, preferLocal: false);
                (lanes._queue as WorkStealingWorkQueue)?.LookAtSiblingsFirst();
                ItemAccounting.MarkNotAUserItem();
                return;
            }

            if (lanes.TryTakeLow(out QueuedWorkItem low))
            {
                Run(low);
                return;
            }

            ItemAccounting.MarkNotAUserItem();
        }

        public void HandBack(List<AbandonedWorkItem> abandoned)
        {
            bool taken = priority == WorkItemPriority.High ? lanes.TryTakeHigh(out QueuedWorkItem item) : lanes.TryTakeLow(out item);
            if (taken)
            {
                ShutdownCoordinator.HandBack(item, abandoned);
            }
        }
    }
}
