namespace SlimPool.Queues;

/// <summary>
/// A queue that can tell the pool its enqueue already ended with a full fence, so the producer may skip its own.
/// </summary>
/// <remarks>
/// <para>The idle protocol (see <see cref="Scheduling.IdleWait"/>) needs, on the producer's side, "the item is
/// visible to <see cref="IWorkQueue.IsEmpty"/>, then a full fence, then the read of the idle state". A queue
/// whose entry becomes visible to <see cref="IWorkQueue.IsEmpty"/> by an interlocked operation (a full fence
/// in .NET's memory model, on every architecture) has already done both: no later read of the producer can be
/// ordered before that operation, and a worker that announced itself idle and then re-checks the queue either
/// sees that operation's write or was seen by the producer's read.</para>
/// <para>Such a queue must also keep <see cref="IWorkQueue.TryDequeue"/> from failing for an entry whose
/// position is claimed but whose contents are not yet written (it waits for them): the worker that saw the
/// claim then takes the entry instead of going back to sleep.</para>
/// </remarks>
internal interface IFencedEnqueue
{
    /// <summary>Adds an entry, as <see cref="IWorkQueue.Enqueue"/> does.</summary>
    /// <param name="item">The entry to add.</param>
    /// <returns>
    /// <see langword="true"/> if the entry became visible to <see cref="IWorkQueue.IsEmpty"/> through an
    /// interlocked operation, so the caller needs no fence of its own; <see langword="false"/> if the caller
    /// must still fence.
    /// </returns>
    bool EnqueueFenced(in QueuedWorkItem item);

    /// <summary>
    /// Adds an entry where every worker looks, not to the calling worker's own part of the queue (<c>preferLocal:
    /// false</c>); a queue without such parts adds it as <see cref="EnqueueFenced"/> does.
    /// </summary>
    /// <param name="item">The entry to add.</param>
    /// <returns>As for <see cref="EnqueueFenced"/>.</returns>
    bool EnqueueFencedShared(in QueuedWorkItem item) => EnqueueFenced(item);

    /// <summary>
    /// Adds the entries in order where every worker looks (as <see cref="EnqueueFencedShared"/> does), each visible to
    /// <see cref="IWorkQueue.IsEmpty"/> once this returns.
    /// </summary>
    /// <param name="items">The entries, oldest first.</param>
    /// <param name="start">The first entry of <paramref name="items"/> to add.</param>
    /// <param name="length">How many to add.</param>
    /// <returns>As for <see cref="EnqueueFenced"/>: true if the last entry's publication was an interlocked operation.</returns>
    bool EnqueueBatchFenced<TBatch>(scoped ref TBatch items, int start, int length)
        where TBatch : IBatchSource, allows ref struct;
}
