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
    /// A deque per worker plus a shared injection queue: items queued from a worker go to that worker's own
    /// deque (last in, first out, cache-warm), idle workers steal the oldest items from their siblings.
    /// See <see cref="Queues.WorkStealingWorkQueue"/>.
    /// </summary>
    WorkStealing,
}
