namespace SlimPool.Queues;

/// <summary>
/// One worker's part of a <see cref="WorkStealingWorkQueue"/>: its deque of items queued on it (newest first for the
/// owner) and its batch of items taken from the shared queue (oldest first for everyone).
/// </summary>
/// <param name="owner">The queue these belong to; a thread-static reference is used only by its owner queue.</param>
/// <param name="workerIndex">The worker's index in the pool.</param>
internal sealed class WorkerQueues(WorkStealingWorkQueue owner, int workerIndex)
{
    /// <summary>Items queued on this worker: the owner pops the newest, thieves steal the oldest.</summary>
    public WorkStealingDeque Deque { get; } = new(owner, workerIndex);

    /// <summary>Items this worker took from the shared queue in one batch, taken oldest first.</summary>
    public RefillBatch Batch { get; } = new();

    public WorkStealingWorkQueue Owner => owner;

    public int WorkerIndex => workerIndex;

    /// <summary>Owner only: its looks since its last fair look (see <see cref="WorkStealingWorkQueue.TryDequeue"/>).</summary>
    public int Looks;

    /// <summary>Owner only: its next look steals before it takes from the shared queue (see <see cref="WorkStealingWorkQueue.LookAtSiblingsFirst"/>).</summary>
    public bool StealFirst;

    public bool IsEmpty => Deque.IsEmpty && Batch.IsEmpty;

    public int Count => Deque.Count + Batch.Count;
}
