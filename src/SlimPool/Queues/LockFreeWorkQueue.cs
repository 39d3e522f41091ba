namespace SlimPool.Queues;

/// <summary>
/// A multi-producer, multi-consumer FIFO <see cref="IWorkQueue"/> without locks on its hot paths (the seed
/// design's <c>slimqless2</c>): a linked list of ring segments whose cells carry sequence numbers.
/// </summary>
/// <remarks>
/// <para>Producers and consumers each claim a position with one compare-and-swap; the cell's sequence number
/// says whether it is free for this lap (producers) or holds this lap's entry (consumers). A segment is a ring
/// that is reused lap after lap, so a queue whose consumers keep up allocates nothing. When a ring is full its
/// producers freeze it and link a segment four times its size, or twice the backlog (up to 2^20 cells); consumers
/// move on once the frozen ring is drained. Only growth takes a lock. Each ring's head and tail sit on cache lines
/// of their own, so producers and consumers on different cores do not contend for one line.</para>
/// <para>A consumer that reaches a cell a producer has claimed but not yet written waits for that write, so
/// <see cref="TryDequeue"/> fails only when no position was claimed: the guarantee the pool's idle protocol
/// needs.</para>
/// <para>The pool itself uses the same queue directly (<c>LockFreeQueue&lt;PaddedHeadAndTail&gt;</c>, without this
/// wrapper's forwarding call).</para>
/// </remarks>
public sealed class LockFreeWorkQueue : IWorkQueue, IFencedEnqueue
{
    private readonly LockFreeQueue<PaddedHeadAndTail> _queue;

    /// <summary>Creates an empty queue.</summary>
    public LockFreeWorkQueue() => _queue = new LockFreeQueue<PaddedHeadAndTail>();

    /// <inheritdoc />
    public bool IsEmpty => _queue.IsEmpty;

    /// <inheritdoc />
    public int Count => _queue.Count;

    /// <inheritdoc />
    public void Enqueue(in QueuedWorkItem item) => _queue.Enqueue(item);

    /// <inheritdoc />
    public bool TryDequeue(out QueuedWorkItem item) => _queue.TryDequeue(out item);

    bool IFencedEnqueue.EnqueueFenced(in QueuedWorkItem item) => ((IFencedEnqueue)_queue).EnqueueFenced(item);

    bool IFencedEnqueue.EnqueueFencedShared(in QueuedWorkItem item) => ((IFencedEnqueue)_queue).EnqueueFencedShared(item);

    bool IFencedEnqueue.EnqueueBatchFenced<TBatch>(scoped ref TBatch items, int start, int length) =>
        ((IFencedEnqueue)_queue).EnqueueBatchFenced(ref items, start, length);
}
