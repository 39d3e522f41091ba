using System.Diagnostics;
using System.Runtime.CompilerServices;
using SlimPool.Scheduling;

namespace SlimPool.Queues;

/// <summary>
/// A worker's run queue: a fixed ring of <see cref="Capacity"/> entries that its owner fills at the back and takes
/// from the front (first in, first out), and from which other workers steal half in one step. A full ring moves half of
/// itself to the shared queue. The shape is tokio's and Go's local run queue.
/// </summary>
/// <remarks>
/// <para><b>Positions.</b> Unsigned 32-bit positions that wrap. <c>_tail</c> is written only by the owner.
/// <c>_head</c> packs two positions: <i>real</i> (low half), the next entry to take, and <i>steal</i> (high half),
/// where a thief's copy begins. While no thief copies, steal == real. Entries at [real, tail) are queued;
/// [steal, real) are claimed by the one thief copying them.</para>
/// <para><b>Who writes what.</b> Only the owner writes a cell for a new entry, at <c>tail</c>, and only when
/// <c>tail - steal &lt; Capacity</c>: the cell it reuses lies below <i>steal</i>, so its entry has been taken and
/// cleared, and no thief still reads it. Every other change is a compare-and-swap of the whole <c>_head</c>, so each
/// position is taken by exactly one thread: the owner's pop moves real (and steal with it, when no thief copies); a
/// thief's claim moves real past the entries it takes and leaves steal behind (so a second thief sees steal != real and
/// backs off); its release moves steal up to real. The owner's overflow claims half with the same compare-and-swap,
/// only while no thief copies. Whoever takes a position clears its cell (<see cref="EntryCell.Take"/>) before it gives
/// the position up, so a free cell holds no reference.</para>
/// <para><b>Publication.</b> The owner writes a cell, then the tail with a release store; a thief reads the tail with
/// an acquire load after reading the head, so every cell below the tail it read is written. The owner's own loads need
/// no fence. A thief copies into its own ring's back and publishes those cells with its own release store of its tail.
/// </para>
/// <para>Modelled in <c>LocalRunQueue.pml</c> beside this file (the owner's push, pop and overflow against two thieves,
/// with the LIFO slot's hand-over): every entry is taken exactly once.</para>
/// </remarks>
internal sealed class LocalRunQueue
{
    /// <summary>The entries a ring holds (Go's and tokio's 256).</summary>
    public const int Capacity = 256;

    /// <summary>How many entries a full ring moves to the shared queue: half of it.</summary>
    public const int OverflowCount = Capacity / 2;

    private const int Mask = Capacity - 1;

    private readonly EntryCell[] _cells = new EntryCell[Capacity];
    private PaddedLong _head; // steal << 32 | real
    private PaddedInt _tail;  // written by the owner only

    /// <summary>Whether the ring held no entry to take (entries a thief is copying are no longer here).</summary>
    public bool IsEmpty
    {
        get
        {
            uint real = Real(Volatile.Read(ref _head.Value));
            return (uint)Volatile.Read(ref _tail.Value) == real;
        }
    }

    /// <summary>An approximate number of entries.</summary>
    public int Count
    {
        get
        {
            uint real = Real(Volatile.Read(ref _head.Value));
            int count = (int)((uint)Volatile.Read(ref _tail.Value) - real);
            return Math.Clamp(count, 0, Capacity);
        }
    }

    /// <summary>
    /// Owner only: adds <paramref name="item"/> at the back. A full ring first moves its older half, then the item, to
    /// <paramref name="overflow"/> in one batch (and so does a ring that a thief is copying from while full).
    /// </summary>
    /// <returns>Whether the item (with the ring's half) went to <paramref name="overflow"/>, whose enqueue ends with a
    /// full fence.</returns>
    public bool PushBack(in QueuedWorkItem item, LockFreeQueue<PaddedHeadAndTail> overflow)
    {
        while (true)
        {
            long head = Volatile.Read(ref _head.Value);
            uint steal = Steal(head);
            uint tail = (uint)_tail.Value; // only the owner writes it
            if (tail - steal < Capacity)
            {
                _cells[(int)(tail & Mask)].Write(item);
                Volatile.Write(ref _tail.Value, (int)(tail + 1)); // release: the cell before the new tail
                return false;
            }

            uint real = Real(head);
            if (steal != real)
            {
                // A thief is copying, so the ring will have room soon; the item goes to the shared queue now.
                ((IFencedEnqueue)overflow).EnqueueFenced(item);
                return true;
            }

            if (TryOverflow(head, item, overflow))
            {
                return true;
            }

            // A thief or nobody moved the head between our loads: look again.
        }
    }

    // The ring is full and no thief copies: claim its older half with one compare-and-swap (a thief may claim some of
    // it first: then the caller looks again), then move that half and the new item to the shared queue in one batch,
    // in the ring's order.
    private bool TryOverflow(long head, in QueuedWorkItem item, LockFreeQueue<PaddedHeadAndTail> overflow)
    {
        uint real = Real(head);
        uint next = real + OverflowCount;
        if (Interlocked.CompareExchange(ref _head.Value, Pack(next, next), head) != head)
        {
            return false;
        }

        OverflowBuffer buffer = default;
        Span<QueuedWorkItem> entries = buffer;
        for (int i = 0; i < OverflowCount; i++)
        {
            entries[i] = _cells[(int)((real + (uint)i) & Mask)].Take();
        }

        entries[OverflowCount] = item;
        var batch = new EntryBatch(entries);
        overflow.EnqueueBatchUntilRetired(ref batch, 0, batch.Count); // the shared queue is never retired
        return true;
    }

    /// <summary>Owner only: takes the oldest entry.</summary>
    public bool TryPop(out QueuedWorkItem item)
    {
        while (true)
        {
            long head = Volatile.Read(ref _head.Value);
            uint real = Real(head);
            if (real == (uint)_tail.Value)
            {
                item = default;
                return false;
            }

            uint steal = Steal(head);
            long next = steal == real ? Pack(real + 1, real + 1) : Pack(steal, real + 1);
            if (Interlocked.CompareExchange(ref _head.Value, next, head) == head)
            {
                // Position real is ours: no thief's claim can include it any more, and no one else writes the cell.
                item = _cells[(int)(real & Mask)].Take();
                return true;
            }

            // A thief claimed entries, or released its claim: look again.
        }
    }

    /// <summary>
    /// A thief: moves half of this ring's entries (rounded up) into <paramref name="destination"/>'s back, as
    /// destination's owner, and returns the newest of them to run now (only that one when the destination is full).
    /// Fails only when the ring was seen empty; waits for another thief's copy to end.
    /// </summary>
    /// <returns>The number of entries taken (the one returned and those moved), 0 when none.</returns>
    public int TryStealHalfInto(LocalRunQueue destination, out QueuedWorkItem item)
    {
        Debug.Assert(destination != this, "a worker does not steal from itself");
        uint destinationTail = (uint)destination._tail.Value; // destination's owner is the caller
        uint destinationRoom = Capacity - (destinationTail - Steal(Volatile.Read(ref destination._head.Value)));
        int count = Claim(maximum: (int)Math.Clamp(destinationRoom, 1, OverflowCount), out uint first);
        if (count == 0)
        {
            item = default;
            return 0;
        }

        // The claimed cells are ours until the release: copy all but the newest to the destination's back, where its
        // thieves see them only after the release store of its tail.
        for (int i = 0; i < count - 1; i++)
        {
            destination._cells[(int)((destinationTail + (uint)i) & Mask)].Write(_cells[(int)((first + (uint)i) & Mask)].Take());
        }

        item = _cells[(int)((first + (uint)(count - 1)) & Mask)].Take();
        Release();
        if (count > 1)
        {
            Volatile.Write(ref destination._tail.Value, (int)(destinationTail + (uint)(count - 1)));
        }

        return count;
    }

    /// <summary>Any thread: takes the oldest entry. Fails only when the ring was seen empty.</summary>
    public bool TryStealOne(out QueuedWorkItem item)
    {
        if (Claim(maximum: 1, out uint first) == 0)
        {
            item = default;
            return false;
        }

        item = _cells[(int)(first & Mask)].Take();
        Release();
        return true;
    }

    // Claims up to `maximum` (at least 1) entries, half of those queued rounded up, for one thief: moves real past them
    // and leaves steal at the first. Fails (0) only when the ring is seen empty.
    private int Claim(int maximum, out uint first)
    {
        var spinner = default(UninterruptedSpin);
        while (true)
        {
            long head = Volatile.Read(ref _head.Value);
            uint steal = Steal(head);
            uint real = Real(head);
            first = real;
            if (steal != real)
            {
                // Another thief is copying. Entries may remain beyond its claim, and a look must not fail while one
                // it saw remains (IWorkQueue's contract), so wait for the copy (at most half a ring) to end.
                if ((uint)Volatile.Read(ref _tail.Value) == real)
                {
                    return 0;
                }

                spinner.SpinOnce();
                continue;
            }

            // Acquire: every cell below the tail we read is written. The tail never lies below the real we read
            // before it; it may lie more than a ring beyond it when the owner popped and pushed between our two loads,
            // and then the head has moved and our compare-and-swap would fail: look again.
            uint queued = (uint)Volatile.Read(ref _tail.Value) - real;
            if (queued == 0)
            {
                return 0;
            }

            if (queued > Capacity)
            {
                continue;
            }

            int count = (int)Math.Min(queued - (queued / 2), (uint)maximum);
            if (Interlocked.CompareExchange(ref _head.Value, Pack(steal, real + (uint)count), head) == head)
            {
                return count;
            }
        }
    }

    // Ends a thief's claim: steal catches up with real (which the owner's pops may have moved on meanwhile).
    private void Release()
    {
        while (true)
        {
            long head = Volatile.Read(ref _head.Value);
            uint real = Real(head);
            Debug.Assert(Steal(head) != real, "a claim is open until its thief releases it");
            if (Interlocked.CompareExchange(ref _head.Value, Pack(real, real), head) == head)
            {
                return;
            }
        }
    }

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static uint Real(long head) => (uint)head;

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static uint Steal(long head) => (uint)((ulong)head >> 32);

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static long Pack(uint steal, uint real) => (long)(((ulong)steal << 32) | real);

    // Room on the owner's stack for an overflow: half the ring and the item that did not fit.
    [InlineArray(OverflowCount + 1)]
    private struct OverflowBuffer
    {
        private QueuedWorkItem _first;
    }
}
