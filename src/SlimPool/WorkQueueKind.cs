namespace SlimPool;

/// <summary>The built-in queues a <see cref="SlimThreadPool"/> can use; see <see cref="SlimThreadPoolOptions.Queue"/>.</summary>
public enum WorkQueueKind
{
    /// <summary>
    /// A plain FIFO queue under a lock (the seed design's <c>qless</c>): simple, strictly FIFO, and slower
    /// once several threads contend for it. See <see cref="Queues.LockedWorkQueue"/>.
    /// </summary>
    Locked,

    /// <summary>
    /// A multi-producer, multi-consumer FIFO queue without locks (the seed design's <c>slimqless2</c>):
    /// linked ring segments whose cells carry sequence numbers. See <see cref="Queues.LockFreeWorkQueue"/>.
    /// </summary>
    LockFree,

    /// <summary>
    /// Per worker a LIFO slot and a first-in first-out ring, plus a shared injection queue: an item queued from a
    /// worker runs next on that worker (cache-warm), the one it displaces goes to the ring; idle workers steal half
    /// of a sibling's ring. The shape of tokio's and Go's schedulers.
    /// See <see cref="Queues.WorkStealingWorkQueue"/>.
    /// </summary>
    WorkStealing,
}
