namespace SlimPool.Queues;

/// <summary>
/// A Chase–Lev work-stealing deque: its owner pushes and pops at the bottom (last in, first out), any other
/// thread steals from the top (first in, first out). The array grows when full; one grown past
/// <see cref="ShrinkAbove"/> entries goes back to its initial size when the owner finds the deque empty after a burst.
/// </summary>
/// <remarks>
/// <para>Ownership: <see cref="Push"/> and <see cref="TryPop"/> are called only by the owning worker, which
/// alone writes <c>Tail</c> (the bottom) and the array. Thieves and the owner advance <c>Head</c> (the top)
/// only by compare-and-swap, so each position is taken by exactly one thread.</para>
/// <para>The one race is for the last entry. The owner first lowers the bottom with a full fence
/// (<see cref="Interlocked.Exchange(ref long, long)"/>), then reads the top; a thief reads the top, then (after
/// a full fence) the bottom. Whichever order the two run in, at least one sees the other's move, and when both
/// could still want the same last entry, both contend on the top with a CAS that only one wins.</para>
/// <para>Clearing: the owner clears a slot it pops; a thief never clears the slot it stole (the owner may be reusing
/// it). Those slots are cleared by the owner when it finds the deque empty (<see cref="OnSeenEmpty"/>): every position
/// below the top has then been taken, and a thief still reading one of them fails its CAS on the top, which has moved
/// past it, so it never returns what it read. No slot keeps an item (and the state it captured) alive after it ran,
/// beyond the next time the owner runs out of work.</para>
/// </remarks>
internal sealed class WorkStealingDeque
{
    private const int InitialLength = 256;

    // An array grown past this is replaced by a fresh initial one when the owner finds the deque empty. Below it the
    // grown array stays (at most 1.5 MB of entries per worker): a worker that queues bursts of a few thousand items
    // to itself would otherwise regrow the array, doubling from the initial length, after every burst, which costs
    // an allocation of several times the entries' size each time (the push-and-pop micro-benchmark measured 78 B
    // per item for bursts of 10,000 with the limit at 1,024).
    internal const int ShrinkAbove = 64 * 1024;

    // TryStealAfterOwnerGrace's wait for a lone entry's owner: Thread.SpinWait(1) is normalized to a few tens of
    // nanoseconds (45 ns on the development machine), so about 5 µs: longer than one Akka mailbox run of 30 short
    // messages (about 1.2 µs), so the owner pops the mailbox it scheduled itself rather than the idle sibling moving
    // the actor pair to the other core (akka-pingpong, one pair: 44 ms a million messages on one core, 290 ms when
    // the pair bounces between two).
    private const int LoneEntryGraceSpins = 120;

    private volatile QueuedWorkItem[] _items = new QueuedWorkItem[InitialLength];
    private PaddedHeadAndTail _positions; // Head = top (steal end), Tail = bottom (owner end)
    private long _cleared; // owner only: the slots of every position below this hold no entry

    public WorkStealingDeque(object owner, int workerIndex)
    {
        Owner = owner;
        WorkerIndex = workerIndex;
    }

    /// <summary>The queue this deque belongs to; a thread-static deque is used only by its owner queue.</summary>
    public object Owner { get; }

    public int WorkerIndex { get; }

    public bool IsEmpty
    {
        get
        {
            long head = Volatile.Read(ref _positions.Head);
            return Volatile.Read(ref _positions.Tail) <= head;
        }
    }

    /// <summary>The length of the current array (tests and diagnostics).</summary>
    public int Capacity => _items.Length;

    public int Count
    {
        get
        {
            long head = Volatile.Read(ref _positions.Head);
            return (int)Math.Max(0, Volatile.Read(ref _positions.Tail) - head);
        }
    }

    /// <summary>Owner only: adds an entry at the bottom.</summary>
    public void Push(in QueuedWorkItem item)
    {
        long bottom = _positions.Tail; // only the owner writes it
        long top = Volatile.Read(ref _positions.Head);
        QueuedWorkItem[] items = _items;
        if (bottom - top >= items.Length)
        {
            items = Grow(items, top, bottom);
        }

        items[(int)bottom & (items.Length - 1)] = item;

        // Release: the entry is written before a thief can see the new bottom.
        Volatile.Write(ref _positions.Tail, bottom + 1);
    }

    /// <summary>Owner only: takes the newest entry.</summary>
    public bool TryPop(out QueuedWorkItem item)
    {
        long bottom = _positions.Tail - 1;
        QueuedWorkItem[] items = _items;

        // Full fence: the lowered bottom is visible before we read the top (pairs with TrySteal's fence).
        Interlocked.Exchange(ref _positions.Tail, bottom);
        long top = Volatile.Read(ref _positions.Head);

        if (top > bottom)
        {
            // Empty: undo.
            Volatile.Write(ref _positions.Tail, bottom + 1);
            OnSeenEmpty(items, top);
            item = default;
            return false;
        }

        int index = (int)bottom & (items.Length - 1);
        item = items[index];
        if (top < bottom)
        {
            // At least one other entry stays, so no thief can reach this slot: no race, and we may clear it.
            items[index] = default;
            return true;
        }

        // Last entry: race the thieves for it on the top.
        bool won = Interlocked.CompareExchange(ref _positions.Head, top + 1, top) == top;
        Volatile.Write(ref _positions.Tail, bottom + 1);
        if (!won)
        {
            OnSeenEmpty(items, top + 1); // a thief took the last entry
            item = default;
            return false;
        }

        items[index] = default;
        return true;
    }

    // Owner only, with the deque empty and every position below `top` taken (see the remarks on clearing).
    private void OnSeenEmpty(QueuedWorkItem[] items, long top)
    {
        if (items.Length > ShrinkAbove)
        {
            // Like Grow: a thief that reads the new bottom reads the new array (volatile), and none can take from the
            // old one, whose positions have all been taken.
            _items = new QueuedWorkItem[InitialLength];
            _cleared = top;
            return;
        }

        for (long i = Math.Max(_cleared, top - items.Length); i < top; i++)
        {
            items[(int)i & (items.Length - 1)] = default;
        }

        _cleared = top;
    }

    /// <summary>Any thread: takes the oldest entry. Fails only when the deque was seen empty.</summary>
    public bool TrySteal(out QueuedWorkItem item) => TryStealAtLeast(1, out item);

    /// <summary>Any thread: takes the oldest entry if at least two are there, leaving a lone one to its owner.</summary>
    public bool TryStealIfMoreThanOne(out QueuedWorkItem item) => TryStealAtLeast(2, out item);

    // Takes the oldest entry while at least minimumCount are seen; fails when fewer are.
    private bool TryStealAtLeast(int minimumCount, out QueuedWorkItem item)
    {
        while (true)
        {
            long top = Volatile.Read(ref _positions.Head);
            Interlocked.MemoryBarrier(); // pairs with TryPop's Exchange: read top, then bottom
            long bottom = Volatile.Read(ref _positions.Tail);
            if (bottom - top < minimumCount)
            {
                item = default;
                return false;
            }

            // The slot at top cannot be overwritten while Head == top (Push grows instead), so if the CAS
            // below succeeds this read was not torn. A thief never clears the slot: after the CAS the owner
            // may already be reusing it.
            QueuedWorkItem[] items = _items;
            item = items[(int)top & (items.Length - 1)];
            if (Interlocked.CompareExchange(ref _positions.Head, top + 1, top) == top)
            {
                return true;
            }

            // Lost to another thief or to the owner's last pop: look again rather than fail spuriously.
        }
    }

    /// <summary>
    /// Any thread: like <see cref="TrySteal"/>, but a lone entry is first left to its owner for about 5 µs.
    /// Fails if the owner (or another thief) takes it meanwhile, although the owner may already have pushed another.
    /// </summary>
    /// <remarks>
    /// A worker running an item that queues its successor pushes it here and pops it as soon as the item returns,
    /// usually a microsecond or less later, with the entry and its data still in this core's cache. A sibling
    /// that steals the lone entry in that gap moves the chain to the other core, and then the chain bounces between
    /// the two at every step (the local-requeue micro-benchmark: 119 ns a step with one chain against 45 ns for the
    /// built-in pool). An owner that does not take the entry in the grace period is busy for longer (a long item,
    /// or one that blocks), and the entry is stolen as before: the delay is bounded, and a caller that fails still
    /// sees the deque non-empty (<see cref="IsEmpty"/>), so an idle worker keeps looking rather than parks.
    /// </remarks>
    public bool TryStealAfterOwnerGrace(out QueuedWorkItem item)
    {
        long top = Volatile.Read(ref _positions.Head);
        Interlocked.MemoryBarrier(); // as in TrySteal: read top, then bottom
        if (Volatile.Read(ref _positions.Tail) - top == 1)
        {
            // One look at the end, not a poll: every read of the owner's positions costs the owner a cache miss
            // on its next pop, and an owner running a chain pops every few tens of nanoseconds.
            // Head only moves forward, by the compare-and-swap of a steal or of the owner's pop of the last entry,
            // each of which takes the entry at its old value: a moved head means the lone entry was taken, and
            // failing then keeps the contract (IWorkQueue.TryDequeue: every entry seen was taken by another thread).
            Thread.SpinWait(LoneEntryGraceSpins);
            if (Volatile.Read(ref _positions.Head) != top)
            {
                item = default;
                return false;
            }
        }

        return TrySteal(out item);
    }

    private QueuedWorkItem[] Grow(QueuedWorkItem[] items, long top, long bottom)
    {
        // Thieves holding the old array still read valid entries from it: positions top..bottom-1 are copied,
        // not moved, and the old array is never written again.
        var grown = new QueuedWorkItem[items.Length * 2];
        for (long i = top; i < bottom; i++)
        {
            grown[(int)i & (grown.Length - 1)] = items[(int)i & (items.Length - 1)];
        }

        _items = grown;
        return grown;
    }
}
