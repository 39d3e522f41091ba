using SlimPool.Workers;

namespace SlimPool.Queues;

/// <summary>
/// A multi-producer, multi-consumer FIFO <see cref="IWorkQueue"/> without locks on its hot paths (the seed
/// design's <c>slimqless2</c>): a linked list of ring segments whose cells carry sequence numbers. The public
/// <see cref="LockFreeWorkQueue"/> and the pool's shared queue use it with <see cref="PaddedHeadAndTail"/>; a group's
/// queue with <see cref="CompactHeadAndTail"/> (a segment of 112 bytes instead of 424).
/// </summary>
/// <remarks>
/// <para>Producers and consumers each claim a position with one compare-and-swap; the cell's sequence number
/// says whether it is free for this lap (producers) or holds this lap's entry (consumers). A segment is a ring
/// that is reused lap after lap, so a queue whose consumers keep up allocates nothing. When a ring is full its
/// producers freeze it and link a segment four times its size, or twice the backlog (up to 2^20 cells; see
/// <see cref="NextSegmentLength"/>); consumers move on once the frozen ring is drained. Only growth takes a
/// lock.</para>
/// <para>A consumer that reaches a cell a producer has claimed but not yet written waits for that write, so
/// <see cref="TryDequeue"/> fails only when no position was claimed: the guarantee the pool's idle protocol
/// needs.</para>
/// </remarks>
internal sealed class LockFreeQueue<TPositions> : IWorkQueue, IFencedEnqueue
    where TPositions : struct, ISegmentPositions
{
    private const int InitialSegmentLength = 1024;
    private const int MaxSegmentLength = 1 << 20;

    private Lock? _growLock; // made by the first growth: a group's queue rarely grows

    // Consumers read and advance _head; producers read and replace _tail (under _growLock). Both only move
    // forward along the _next links.
    private volatile LockFreeSegment<TPositions> _head;
    private volatile LockFreeSegment<TPositions> _tail;

    /// <summary>Creates an empty queue.</summary>
    public LockFreeQueue()
        : this(InitialSegmentLength)
    {
    }

    /// <summary>Creates an empty queue whose first ring has <paramref name="initialSegmentLength"/> cells (a power of two).</summary>
    public LockFreeQueue(int initialSegmentLength)
    {
        _head = _tail = new LockFreeSegment<TPositions>(initialSegmentLength);
    }

    /// <inheritdoc />
    public bool IsEmpty
    {
        get
        {
            // A completed Enqueue linked its segment before returning, so walking from _head sees it.
            for (LockFreeSegment<TPositions>? segment = _head; segment is not null; segment = segment.Next)
            {
                if (!segment.IsEmpty)
                {
                    return false;
                }
            }

            return true;
        }
    }

    /// <inheritdoc />
    public int Count
    {
        get
        {
            long count = 0;
            for (LockFreeSegment<TPositions>? segment = _head; segment is not null; segment = segment.Next)
            {
                count += segment.Count;
            }

            return (int)Math.Min(count, int.MaxValue);
        }
    }

    /// <inheritdoc />
    public void Enqueue(in QueuedWorkItem item) => TryEnqueue(item);

    /// <summary>
    /// Adds an entry unless the queue was retired (<see cref="TryRetire"/>): false then, and the entry is not in the
    /// queue. A queue never retired always accepts. The entry becomes visible through a compare-and-swap (a full fence).
    /// </summary>
    public bool TryEnqueue(in QueuedWorkItem item) => TryEnqueue(item.StoredCallback, item.StoredState, item.Context);

    /// <summary>As <see cref="TryEnqueue(in QueuedWorkItem)"/>, the entry given as its three references.</summary>
    public bool TryEnqueue(object callback, object? state, ExecutionContext? context)
    {
        while (true)
        {
            LockFreeSegment<TPositions> tail = _tail;
            if (tail.TryEnqueue(callback, state, context))
            {
                return true;
            }

            if (!TryGrowPast(tail, incoming: 1))
            {
                return false;
            }
        }
    }

    /// <summary>
    /// Adds <paramref name="length"/> entries of <paramref name="items"/> from <paramref name="start"/> on, in order, with
    /// one compare-and-swap per ring they land in (<see cref="LockFreeSegment{TPositions}.TryEnqueueBatch"/>: entries that fit the
    /// tail ring become visible at once; the last claim is a full fence, as for <see cref="Enqueue"/>), and returns how
    /// many went in: all of them, unless the queue was retired first (the pool's own queue never is). Only an empty queue is retired, so the
    /// entries that went in before were all taken by then, and the rest can follow them into another queue in order.
    /// </summary>
    public int EnqueueBatchUntilRetired<TBatch>(scoped ref TBatch items, int start, int length)
        where TBatch : IBatchSource, allows ref struct
    {
        int added = 0;
        while (added < length)
        {
            LockFreeSegment<TPositions> tail = _tail;
            int claimed = tail.TryEnqueueBatch(ref items, start + added, length - added);
            if (claimed > 0)
            {
                added += claimed;
                continue;
            }

            if (!TryGrowPast(tail, length - added))
            {
                break;
            }
        }

        return added;
    }

    // The ring `tail` is full, or frozen (by another producer that grew it, or by TryRetire): links a new ring after it
    // unless another producer did, so the caller retries on the new tail; false if the queue was retired (a retired ring
    // is never linked further: see TryRetire). `incoming` is what the caller still has to add, counted in the new
    // ring's size as backlog.
    private bool TryGrowPast(LockFreeSegment<TPositions> tail, int incoming)
    {
        if (tail.IsRetired)
        {
            return false;
        }

        using (ThreadInterrupts.Hold(GrowLock)) // a producer's publish must not throw half-way at an interrupt
        {
            if (tail == _tail)
            {
                // Freeze before linking: once a consumer can see Next, no producer can still add to this
                // ring, so "ring empty and Next set" means "ring finished" (see TryDequeue). A full ring may be
                // drained and retired between the look above and here; the freeze tells (see TryRetire).
                if (!tail.FreezeUnlessRetired())
                {
                    return false;
                }

                var next = new LockFreeSegment<TPositions>(NextSegmentLength(tail.Length, (long)Count + incoming));
                tail.Next = next;
                _tail = next;
            }
        }

        return true;
    }

    private Lock GrowLock
    {
        get
        {
            Lock? growLock = Volatile.Read(ref _growLock);
            if (growLock is null)
            {
                Interlocked.CompareExchange(ref _growLock, new Lock(), null);
                growLock = _growLock!;
            }

            return growLock;
        }
    }

    /// <summary>
    /// Retires the queue if it is empty: from then on every <see cref="TryEnqueue(in QueuedWorkItem)"/> fails, so the queue can be dropped
    /// and its storage collected. True if the queue is (now) retired; false if it holds an entry, or an entry or a new
    /// ring is on its way in, and then it stays as it was.
    /// </summary>
    /// <remarks>
    /// The retire is one compare-and-swap on the last ring's tail (<see cref="LockFreeSegment{TPositions}.TryRetire"/>), the word a
    /// producer's claim swaps and a growth freezes: a claim before it makes it fail, and after it every claim fails and
    /// the producer, finding the ring retired, gives up instead of linking a new one. A ring already frozen for a growth
    /// is never retired; a full ring that consumers drain and this retires while a producer waits to grow it is seen
    /// retired by that producer's freeze (<see cref="LockFreeSegment{TPositions}.FreezeUnlessRetired"/>), the same word, so no ring
    /// is ever linked behind a retired one. With more than one ring the queue is not retired (the consumers have not
    /// moved past the older rings yet).
    /// </remarks>
    public bool TryRetire()
    {
        LockFreeSegment<TPositions> tail = _tail;
        return tail.IsRetired || (tail == _head && tail.TryRetire());
    }

    // The next ring is four times the full one (at most MaxSegmentLength), or twice what is queued now if that is
    // more. Rings are reused lap after lap once the older ones drain, so the last ring a burst leaves behind decides
    // whether the next burst allocates: growing by four reaches a ring that holds the whole burst in fewer steps
    // than doubling (whose last ring holds only about half of it), at most twice the memory doubling would hold.
    // Fresh memory is what growth costs: a page fault every 128 cells, several times the cost of the enqueue itself.
    public static int NextSegmentLength(int fullLength, long backlog)
    {
        long wanted = Math.Max(4L * fullLength, 2 * backlog);
        return (int)Math.Min(MaxSegmentLength, (long)System.Numerics.BitOperations.RoundUpToPowerOf2((ulong)wanted));
    }

    // Every Enqueue ends with the compare-and-swap that claims its position in a ring's tail (LockFreeSegment.
    // TryEnqueue), and IsEmpty reads those tails: the claim is the moment the entry becomes visible, and a full
    // fence. A consumer that reaches a claimed, unwritten cell waits for it rather than fail.
    bool IFencedEnqueue.EnqueueFenced(in QueuedWorkItem item)
    {
        Enqueue(item);
        return true;
    }

    // The last ring's claim is the batch's full fence (see EnqueueFenced); an empty batch claims nothing.
    bool IFencedEnqueue.EnqueueBatchFenced<TBatch>(scoped ref TBatch items, int start, int length) =>
        EnqueueBatchUntilRetired(ref items, start, length) > 0;

    /// <summary>
    /// Takes up to <paramref name="buffer"/>'s length of published entries from the front of the current head segment
    /// with one compare-and-swap (see <see cref="LockFreeSegment{TPositions}.TryDequeueBatch"/>); 0 may mean only that the front
    /// entry is not published yet or sits in the next segment: use <see cref="TryDequeue"/> for a definite answer.
    /// </summary>
    public int TryDequeueBatch(Span<QueuedWorkItem> buffer) => _head.TryDequeueBatch(buffer);

    /// <inheritdoc />
    public bool TryDequeue(out QueuedWorkItem item)
    {
        while (true)
        {
            LockFreeSegment<TPositions> head = _head;
            if (head.TryDequeue(out item))
            {
                return true;
            }

            LockFreeSegment<TPositions>? next = head.Next;
            if (next is null)
            {
                return false;
            }

            // Next was set after head was frozen. The look above may predate the freeze, so look once more:
            // this look sees the frozen, final tail, and if it finds nothing the ring is drained for good.
            if (head.TryDequeue(out item))
            {
                return true;
            }

            Interlocked.CompareExchange(ref _head, next, head);
        }
    }
}
