namespace SlimPool.Scheduling;

/// <summary>
/// What an owner of accepted work (a group's turns, the priority lanes) needs from its pool to put that work back in
/// the queue: the one publish that is never refused (see <see cref="Publisher"/>).
/// </summary>
internal interface IAcceptedWorkPublisher
{
    /// <summary>
    /// Queues an item that stands for items the pool, or a group of it, has already accepted (a group's turn, a lane's
    /// ticket): never refused, not even once shutdown has begun. The shutdown then takes it like an item that raced the
    /// shutdown flag (<see cref="Lifecycle.ShutdownCoordinator.OnQueuedDuringShutdown"/>): a drain runs it, an abandon
    /// hands it back. It takes a capacity slot over the bound, and carries no ExecutionContext: it runs in the worker's
    /// clean one, and each item it runs in its own.
    /// </summary>
    void PublishAccepted(object callback, bool preferLocal, WorkItemPriority priority = WorkItemPriority.Normal);

    /// <summary>
    /// <see cref="PublishAccepted"/> in two steps, for a caller that must act between them: this one puts the item
    /// where the pool's workers and a drain look (the queue, or a priority lane), followed by a full fence, and runs
    /// nothing; <see cref="FinishAccepted"/>, given what this returned, wakes a worker for it, or hands it to a shutdown
    /// that began, which may run it on this thread when the pool has already finished.
    /// </summary>
    bool QueueAccepted(object callback, bool preferLocal, WorkItemPriority priority);

    /// <summary>The second step of <see cref="QueueAccepted"/>, given what it returned.</summary>
    void FinishAccepted(bool queued);
}
