namespace SlimPool.Groups;

/// <summary>
/// One worker's groups whose turn it ended with their queue empty, and whose queues it drops later: when more groups
/// than <see cref="Capacity"/> have ended a turn on it since, or once it has been parked for
/// <see cref="KeepWhileParkedMilliseconds"/> without work.
/// </summary>
/// <remarks>
/// <para>A serial queue whose worker keeps up with its producer finds its queue empty after nearly every item. Dropped
/// there and then, the queue is remade for the next item (about 240 bytes: its first ring of 2 cells, the segment with
/// its head and tail, the queue): that doubled the cost of a busy serial queue. Kept until the worker parks, it is
/// remade at most once a <see cref="Capacity"/> turns while the worker is busy, and an idle pool still holds no queue
/// for an idle group.</para>
/// <para>The worker parks before it drops: a producer that pauses (a bounded producer waiting for room, a burst that
/// ends) lets its serial queue's worker park, and dropped at the park, the queue was remade for the next burst, growing
/// again from 2 cells to the burst's size: in the comparison program's serial-queues case about 150 rings a run of
/// 300,000 items, 25 MB allocated. So the queues are kept for <see cref="KeepWhileParkedMilliseconds"/> from the first
/// park after a group's turn last ended here (<see cref="KeepMillisecondsAtPark"/>), and the park that reaches that
/// time drops them (the idle waits, <see cref="Scheduling.SpinThenParkIdleWait"/> and
/// <see cref="Scheduling.AutoResetEventIdleWait"/>). The time runs on across wakes for other work: a worker woken more
/// often than that by items of no group still drops them.</para>
/// <para>Owned by its worker's thread: only that thread adds, drops and reads it, so nothing here is shared but each
/// group's mark (<see cref="GroupTurns.TryDeferDrop"/>), which keeps a group in one worker's list at a time. A drop is
/// safe from any thread at any time (<see cref="GroupTurns.DropQueueIfEmpty"/>: a queue is retired only while empty,
/// and a retired queue refuses every later enqueue), so a drop that comes late changes only memory, never which items
/// run or in what order; GroupTurns.pml drops at any time too. The entries keep their groups reachable until dropped:
/// at most <see cref="Capacity"/> a worker.</para>
/// </remarks>
internal sealed class DeferredQueueDrops
{
    /// <summary>The most groups a worker keeps a queue for after their turn found it empty.</summary>
    public const int Capacity = 64;

    /// <summary>How long a parked worker keeps its groups' queues before it drops them.</summary>
    public const int KeepWhileParkedMilliseconds = 20;

    private readonly GroupTurns?[] _groups = new GroupTurns?[Capacity];
    private int _next;  // the slot the next group goes into: the oldest entry once all are used
    private int _count; // entries in use: DropAll, called at every park, returns at once when none
    private bool _addedSincePark; // a group's turn ended here since the worker last parked
    private long _keptSince;      // Environment.TickCount64 at the first park after the last Add

    /// <summary>Whether the worker keeps no group's queue.</summary>
    public bool IsEmpty => _count == 0;

    /// <summary>
    /// Defers the drop of <paramref name="group"/>'s queue, unless a worker holds it already; drops the oldest deferred
    /// one when all slots are used. A group is held once, so the hot groups of a busy worker stay while they are at most
    /// <see cref="Capacity"/>, however often their turns end.
    /// </summary>
    public void Add(GroupTurns group)
    {
        _addedSincePark = true;
        if (!group.TryDeferDrop())
        {
            return;
        }

        GroupTurns? oldest = _groups[_next];
        _groups[_next] = group;
        _next = (_next + 1) & (Capacity - 1);
        if (oldest is null)
        {
            _count++;
        }
        else
        {
            oldest.DropDeferred();
        }
    }

    /// <summary>
    /// The worker is parking with queues kept: how many more milliseconds of parking it keeps them for, 0 when the
    /// time is up and it drops them now. The time starts at the first park after a group's turn last ended here.
    /// </summary>
    public int KeepMillisecondsAtPark()
    {
        long now = Environment.TickCount64;
        if (_addedSincePark)
        {
            _addedSincePark = false;
            _keptSince = now;
        }

        long left = KeepWhileParkedMilliseconds - (now - _keptSince);
        return left > 0 ? (int)left : 0;
    }

    /// <summary>Drops every deferred queue that is still empty (the worker is about to park, has parked a while, or exits).</summary>
    public void DropAll()
    {
        if (_count == 0)
        {
            return;
        }

        for (int i = 0; i < Capacity; i++)
        {
            if (_groups[i] is { } group)
            {
                _groups[i] = null;
                group.DropDeferred();
            }
        }

        _count = 0;
        _next = 0;
    }
}
