using System.Diagnostics;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using SlimPool.Scheduling;

namespace SlimPool.Queues;

/// <summary>
/// One bounded ring of <see cref="LockFreeQueue{TPositions}"/>: cells with sequence numbers (Vyukov's bounded MPMC
/// queue), a head and a tail laid out as <typeparamref name="TPositions"/> says, and a frozen bit in the tail.
/// </summary>
/// <remarks>
/// <para><b>Layout.</b> A cell's sequence lives in one array and its three references in three regions of another
/// (callbacks, then states, then contexts), not side by side: most entries have neither state nor context, so a
/// producer writes 16 bytes an entry (its sequence and its callback) and a consumer reads and clears the same, over
/// half the cache lines a 32-byte cell spans. Those lines are what the producer's and the consumers' cores pass between
/// them in a stream of items from outside; the state and context regions stay untouched, and shared, while they hold
/// nothing. A consumer reads them only once some producer wrote one (<c>_holdsExtras</c>): a ring that only ever held
/// work items and callbacks without state is read as the 16 bytes an entry it was written as, which matters most where
/// a consumer drains entries another core queued into a ring it never read (a backlog, a burst into a new ring).</para>
/// <para><c>_holdsExtras</c> is set, and never cleared, by a producer that writes a state or a context, before it
/// publishes that cell's sequence (release); a consumer reads it after its acquire of the cell's sequence. So a consumer
/// that finds it clear takes a cell whose producer wrote neither, and whose state and context are null: a free cell
/// holds no reference, because a consumer clears each one it finds set, and it finds set every one written.</para>
/// <para>Cell <c>i</c> starts with sequence <c>i</c>. A producer at position <c>t</c> may write the cell when its
/// sequence equals <c>t</c>, and publishes the entry by storing <c>t + 1</c> (release). A consumer at position
/// <c>h</c> may take the cell when its sequence equals <c>h + 1</c>, and frees it for the next lap by storing
/// <c>h + Length</c> (release). The positions themselves advance by compare-and-swap, so each position is owned
/// by exactly one producer and then exactly one consumer.</para>
/// </remarks>
internal sealed class LockFreeSegment<TPositions>
    where TPositions : struct, ISegmentPositions
{
    // Set in the tail once the segment is frozen: every later producer CAS sees a different value and fails.
    private const long FrozenBit = 1L << 62;

    // Set with FrozenBit, by TryRetire, in the tail of an empty segment: the queue it ends is retired for good.
    private const long RetiredBit = 1L << 61;

    private const long PositionMask = ~(FrozenBit | RetiredBit);

    private readonly long[] _sequences;
    private readonly object?[] _references; // callbacks at [i], states at [length + i], contexts at [2 * length + i]
    private readonly int _mask;
    private bool _holdsExtras; // some producer wrote a state or a context (see the remarks)
    private TPositions _positions;
    private volatile LockFreeSegment<TPositions>? _next;

    public LockFreeSegment(int length)
    {
        _sequences = new long[length];
        _references = new object?[3 * length];
        _mask = length - 1;
        for (int i = 0; i < length; i++)
        {
            _sequences[i] = i;
        }
    }

    public int Length => _mask + 1;

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

    /// <summary>
    /// The entries claimed and not yet taken, as of one moment: the head is read again after the tail, and the pair is
    /// taken once the head did not move between (a reader preempted between its two reads while the queue churned read a
    /// tail thousands of entries past its head, where at most a handful waited). Past a few tries, the smaller count.
    /// </summary>
    public long Count
    {
        get
        {
            long head = Volatile.Read(ref _positions.Head);
            long tail;
            for (int tries = 0; ; tries++)
            {
                tail = Volatile.Read(ref _positions.Tail) & PositionMask;
                long again = Volatile.Read(ref _positions.Head);
                if (again == head || tries == 3)
                {
                    head = again;
                    break;
                }

                head = again;
            }

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

    /// <summary>Adds an entry given as its three references; false when the ring is full or frozen.</summary>
    public bool TryEnqueue(object callback, object? state, ExecutionContext? context)
    {
        while (true)
        {
            long tail = Volatile.Read(ref _positions.Tail);
            if ((tail & FrozenBit) != 0)
            {
                return false;
            }

            int index = (int)tail & _mask;
            ref long sequence = ref SequenceAt(index);
            long diff = Volatile.Read(ref sequence) - tail;
            if (diff == 0)
            {
                if (Interlocked.CompareExchange(ref _positions.Tail, tail + 1, tail) == tail)
                {
                    Write(index, callback, state, context);
                    Volatile.Write(ref sequence, tail + 1); // publish: pairs with the consumer's acquire
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
        int limit = Math.Min(length, Length);
        while (true)
        {
            long tail = Volatile.Read(ref _positions.Tail);
            if ((tail & FrozenBit) != 0)
            {
                return 0;
            }

            int count = 0;
            while (count < limit && Volatile.Read(ref SequenceAt((int)(tail + count) & _mask)) == tail + count)
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
                // Every entry's references first, in at most two runs (the ring wraps), then the sequences in order:
                // a consumer reads a cell's references only after its sequence (acquire), which is stored after them.
                int first = (int)tail & _mask;
                int firstRun = Math.Min(count, Length - first);
                CopyRun(ref items, start, first, firstRun);
                if (firstRun < count)
                {
                    CopyRun(ref items, start + firstRun, 0, count - firstRun);
                }

                for (int i = 0; i < count; i++)
                {
                    Volatile.Write(ref SequenceAt((int)(tail + i) & _mask), tail + i + 1); // publish: pairs with the consumer's acquire
                }

                return count;
            }

            // Another producer claimed positions first; count again from the new tail.
        }
    }

    public bool TryDequeue(out QueuedWorkItem item)
    {
        var spinner = default(UninterruptedSpin);
        while (true)
        {
            long head = Volatile.Read(ref _positions.Head);
            int index = (int)head & _mask;
            ref long sequence = ref SequenceAt(index);
            long diff = Volatile.Read(ref sequence) - (head + 1);
            if (diff == 0)
            {
                if (Interlocked.CompareExchange(ref _positions.Head, head + 1, head) == head)
                {
                    item = Take(index); // and clears the cell: it keeps no delegate or state alive
                    Volatile.Write(ref sequence, head + Length); // free the cell for the next lap
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

                spinner.SpinOnce();
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
        while (true)
        {
            long head = Volatile.Read(ref _positions.Head);

            // Count the published cells from the head (acquire each: its entry was written before its sequence).
            // A cell whose sequence is position + 1 holds that position's entry for this lap, and nobody else can
            // take or rewrite it before the head moves past it, which makes our compare-and-swap fail.
            int count = 0;
            while (count < buffer.Length && Volatile.Read(ref SequenceAt((int)(head + count) & _mask)) == head + count + 1)
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
                    int index = (int)(head + i) & _mask;
                    buffer[i] = Take(index);
                    Volatile.Write(ref SequenceAt(index), head + i + Length); // free the cell for the next lap
                }

                return count;
            }

            // Another consumer moved the head first; count again from where it is now.
        }
    }

    // Cells are addressed by an index already masked to the ring, so the arrays' bounds checks are left out.
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private ref long SequenceAt(int index)
    {
        Debug.Assert((uint)index < (uint)Length, "a masked index");
        return ref Unsafe.Add(ref MemoryMarshal.GetArrayDataReference(_sequences), index);
    }

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private ref object? ReferenceAt(int index)
    {
        Debug.Assert((uint)index < (uint)_references.Length, "within the three regions");
        return ref Unsafe.Add(ref MemoryMarshal.GetArrayDataReference(_references), index);
    }

    // The batch's entries from start on into the free cells index to index + length - 1, region by region; before the
    // sequences are published (TryEnqueueBatch), as Write.
    private void CopyRun<TBatch>(scoped ref TBatch items, int start, int index, int length)
        where TBatch : IBatchSource, allows ref struct
    {
        bool extras = items.CopyTo(
            start,
            _references.AsSpan(index, length),
            _references.AsSpan(Length + index, length),
            _references.AsSpan((2 * Length) + index, length));
        if (extras)
        {
            MarkHoldsExtras();
        }
    }

    // Before the cell's sequence is published. Written only while clear: producers and consumers read this line on
    // every entry, and a store each time would take it from them.
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private void MarkHoldsExtras()
    {
        if (!_holdsExtras)
        {
            _holdsExtras = true;
        }
    }

    // A free cell holds no reference (Take clears it), so only the references that are set are stored: each store into
    // the heap costs a write barrier, and most entries have neither state nor context.
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private void Write(int index, object callback, object? state, ExecutionContext? context)
    {
        ReferenceAt(index) = callback;
        if (state is not null)
        {
            ReferenceAt(Length + index) = state;
            MarkHoldsExtras();
        }

        if (context is not null)
        {
            ReferenceAt((2 * Length) + index) = context;
            MarkHoldsExtras();
        }
    }

    // Reads the entry and clears the cell, after the acquire of its sequence. A state or context is read only in a ring
    // that ever held one (see the remarks), before it is cleared, and cleared only when set: a region that holds nothing
    // is never written, so its lines stay shared between the cores.
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private QueuedWorkItem Take(int index)
    {
        ref object? callback = ref ReferenceAt(index);
        if (!_holdsExtras)
        {
            var plain = new QueuedWorkItem(callback!, state: null, context: null);
            callback = null;
            return plain;
        }

        ref object? state = ref ReferenceAt(Length + index);
        ref object? context = ref ReferenceAt((2 * Length) + index);
        var item = new QueuedWorkItem(callback!, state, Unsafe.As<ExecutionContext?>(context));
        callback = null;
        if (state is not null)
        {
            state = null;
        }

        if (context is not null)
        {
            context = null;
        }

        return item;
    }
}
