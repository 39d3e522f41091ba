using System.Runtime.CompilerServices;

namespace SlimPool.Queues;

/// <summary>
/// One bounded ring of <see cref="LockFreeQueue{TPositions}"/>: cells with sequence numbers (Vyukov's bounded MPMC
/// queue), a head and a tail laid out as <typeparamref name="TPositions"/> says, and a frozen bit in the tail.
/// </summary>
/// <remarks>
/// Cell <c>i</c> starts with sequence <c>i</c>. A producer at position <c>t</c> may write the cell when its
/// sequence equals <c>t</c>, and publishes the entry by storing <c>t + 1</c> (release). A consumer at position
/// <c>h</c> may take the cell when its sequence equals <c>h + 1</c>, and frees it for the next lap by storing
/// <c>h + Length</c> (release). The positions themselves advance by compare-and-swap, so each position is owned
/// by exactly one producer and then exactly one consumer.
/// </remarks>
internal sealed class LockFreeSegment<TPositions>
    where TPositions : struct, ISegmentPositions
{
    // Set in the tail once the segment is frozen: every later producer CAS sees a different value and fails.
    private const long FrozenBit = 1L << 62;

    // Set with FrozenBit, by TryRetire, in the tail of an empty segment: the queue it ends is retired for good.
    private const long RetiredBit = 1L << 61;

    private const long PositionMask = ~(FrozenBit | RetiredBit);

    private readonly Cell[] _cells;
    private readonly int _mask;
    private TPositions _positions;
    private volatile LockFreeSegment<TPositions>? _next;

    public LockFreeSegment(int length)
    {
        _cells = new Cell[length];
        _mask = length - 1;
        for (int i = 0; i < _cells.Length; i++)
        {
            _cells[i].Sequence = i;
        }
    }

    public int Length => _cells.Length;

    public LockFreeSegment<TPositions>? Next
    {
        get => _next;
        set => _next = value;
    }

    public bool IsEmpty
    {
        get
        {
            // Head first, then tail: head never passes tail, so tail <= head here means the two were equal
            // at the moment the tail was read.
            long head = Volatile.Read(ref _positions.Head);
            long tail = Volatile.Read(ref _positions.Tail) & PositionMask;
            return tail <= head;
        }
    }

    public long Count
    {
        get
        {
            long head = Volatile.Read(ref _positions.Head);
            long tail = Volatile.Read(ref _positions.Tail) & PositionMask;
            return Math.Max(0, tail - head);
        }
    }

    /// <summary>Whether <see cref="TryRetire"/> retired the segment.</summary>
    public bool IsRetired => (Volatile.Read(ref _positions.Tail) & RetiredBit) != 0;

    /// <summary>
    /// Freezes the segment for a growth unless <see cref="TryRetire"/> retired it first: false then. The or and the
    /// retire's compare-and-swap change the same word, so exactly one of them wins: after the freeze the retire fails.
    /// </summary>
    public bool FreezeUnlessRetired() => (Interlocked.Or(ref _positions.Tail, FrozenBit) & RetiredBit) == 0;

    /// <summary>
    /// Freezes and retires the segment if it is empty and not frozen, with one compare-and-swap on the tail: the word every
    /// producer's claim (<see cref="TryEnqueue"/>) and every growth's freeze (<see cref="FreezeUnlessRetired"/>) also changes, so the retire succeeds
    /// only if no claim and no freeze came between the look and the swap, and every claim after it fails.
    /// </summary>
    public bool TryRetire()
    {
        // Head first, then tail: head never passes tail, so tail == head means the segment was empty when the tail was
        // read; the swap then succeeds only if the tail has not moved since, so it was still empty at the swap.
        long head = Volatile.Read(ref _positions.Head);
        long tail = Volatile.Read(ref _positions.Tail);
        return (tail & FrozenBit) == 0 && tail == head
            && Interlocked.CompareExchange(ref _positions.Tail, tail | FrozenBit | RetiredBit, tail) == tail;
    }

    public bool TryEnqueue(in QueuedWorkItem item)
    {
        Cell[] cells = _cells;
        while (true)
        {
            long tail = Volatile.Read(ref _positions.Tail);
            if ((tail & FrozenBit) != 0)
            {
                return false;
            }

            ref Cell cell = ref cells[(int)tail & _mask];
            long diff = Volatile.Read(ref cell.Sequence) - tail;
            if (diff == 0)
            {
                if (Interlocked.CompareExchange(ref _positions.Tail, tail + 1, tail) == tail)
                {
                    cell.Entry.Write(item);
                    Volatile.Write(ref cell.Sequence, tail + 1); // publish: pairs with the consumer's acquire
                    return true;
                }
            }
            else if (diff < 0)
            {
                // The cell still holds the entry from one lap ago: the ring is full.
                return false;
            }

            // Another producer claimed this position first; try the next one.
        }
    }

    /// <summary>
    /// Adds the longest prefix of <paramref name="items"/>' entries from <paramref name="start"/> on (at most
    /// <paramref name="length"/>) that fits in the free cells from the tail on, with one
    /// compare-and-swap on the tail, and returns its length: 0 when the ring is frozen or its tail cell is not free.
    /// </summary>
    /// <remarks>
    /// A cell is free for position <c>p</c> when its sequence is <c>p</c>; consumers free cells out of order (two of
    /// them finish in either order), so each cell from the tail is checked, as <see cref="TryDequeueBatch"/> checks
    /// each published one. A free cell stays free until its position is claimed, which only the swap below does, so
    /// the count holds if the swap succeeds. The claim makes the whole prefix visible at once (<see cref="IsEmpty"/>
    /// reads the tail); a consumer that reaches a claimed cell before its entry is written waits for it, as it does
    /// for a single enqueue, and the entries are published in order.
    /// </remarks>
    public int TryEnqueueBatch<TBatch>(scoped ref TBatch items, int start, int length)
        where TBatch : IBatchSource, allows ref struct
    {
        Cell[] cells = _cells;
        int limit = Math.Min(length, cells.Length);
        while (true)
        {
            long tail = Volatile.Read(ref _positions.Tail);
            if ((tail & FrozenBit) != 0)
            {
                return 0;
            }

            int count = 0;
            while (count < limit && Volatile.Read(ref cells[(int)(tail + count) & _mask].Sequence) == tail + count)
            {
                count++;
            }

            if (count == 0)
            {
                // The tail's cell holds last lap's entry (the ring is full), or another producer claimed it first
                // and moved the tail: look again only in that second case.
                if (Volatile.Read(ref _positions.Tail) == tail)
                {
                    return 0;
                }

                continue;
            }

            if (Interlocked.CompareExchange(ref _positions.Tail, tail + count, tail) == tail)
            {
                for (int i = 0; i < count; i++)
                {
                    ref Cell cell = ref cells[(int)(tail + i) & _mask];
                    cell.Entry.Write(items.At(start + i));
                    Volatile.Write(ref cell.Sequence, tail + i + 1); // publish: pairs with the consumer's acquire
                }

                return count;
            }

            // Another producer claimed positions first; count again from the new tail.
        }
    }

    public bool TryDequeue(out QueuedWorkItem item)
    {
        Cell[] cells = _cells;
        SpinWait spinner = default;
        while (true)
        {
            long head = Volatile.Read(ref _positions.Head);
            ref Cell cell = ref cells[(int)head & _mask];
            long diff = Volatile.Read(ref cell.Sequence) - (head + 1);
            if (diff == 0)
            {
                if (Interlocked.CompareExchange(ref _positions.Head, head + 1, head) == head)
                {
                    item = cell.Entry.Take(); // and clears it: the cell keeps no delegate or state alive
                    Volatile.Write(ref cell.Sequence, head + cells.Length); // free the cell for the next lap
                    return true;
                }
            }
            else if (diff < 0)
            {
                // Not written for this lap. Either nothing was claimed (empty), or a producer claimed this
                // position and is between its CAS and its publish: wait for it rather than report "empty",
                // because its Enqueue may complete at any moment and later positions may already be complete.
                long tail = Volatile.Read(ref _positions.Tail) & PositionMask;
                if (tail <= head)
                {
                    item = default;
                    return false;
                }

                spinner.SpinOnce(sleep1Threshold: -1);
                continue;
            }

            // Another consumer took this position first; try the next one.
        }
    }

    /// <summary>
    /// Takes up to <paramref name="buffer"/>'s length of the oldest entries with one compare-and-swap on the head:
    /// only entries already published, in order, from the head on. Returns how many were taken; 0 when the head's
    /// cell holds no published entry (empty, or its producer is between its claim and its publish: the caller
    /// that needs an answer then uses <see cref="TryDequeue"/>, which waits for that producer).
    /// </summary>
    public int TryDequeueBatch(Span<QueuedWorkItem> buffer)
    {
        Cell[] cells = _cells;
        while (true)
        {
            long head = Volatile.Read(ref _positions.Head);

            // Count the published cells from the head (acquire each: its entry was written before its sequence).
            // A cell whose sequence is position + 1 holds that position's entry for this lap, and nobody else can
            // take or rewrite it before the head moves past it, which makes our compare-and-swap fail.
            int count = 0;
            while (count < buffer.Length && Volatile.Read(ref cells[(int)(head + count) & _mask].Sequence) == head + count + 1)
            {
                count++;
            }

            if (count == 0)
            {
                return 0;
            }

            if (Interlocked.CompareExchange(ref _positions.Head, head + count, head) == head)
            {
                for (int i = 0; i < count; i++)
                {
                    ref Cell cell = ref cells[(int)(head + i) & _mask];
                    buffer[i] = cell.Entry.Take();
                    Volatile.Write(ref cell.Sequence, head + i + cells.Length); // free the cell for the next lap
                }

                return count;
            }

            // Another consumer moved the head first; count again from where it is now.
        }
    }

    // The entry (see EntryCell: a free cell holds no reference, so a write stores only the references that are set)
    // and the cell's sequence.
    private struct Cell
    {
        public EntryCell Entry;
        public long Sequence;
    }
}
