namespace SlimPool.Queues;

/// <summary>
/// The thread-safe queue behind a <see cref="SlimThreadPool"/>. SlimPool ships three
/// (<see cref="LockedWorkQueue"/>, <see cref="LockFreeWorkQueue"/>, <see cref="WorkStealingWorkQueue"/>);
/// plug in your own with <see cref="SlimThreadPoolOptions.QueueFactory"/>.
/// </summary>
/// <remarks>
/// <para>Contract, relied on by the pool's idle protocol and shutdown:</para>
/// <list type="bullet">
/// <item><description>Any number of threads call every member concurrently.</description></item>
/// <item><description>An entry passed to <see cref="Enqueue"/> is returned by exactly one later
/// <see cref="TryDequeue"/>; none is lost or duplicated.</description></item>
/// <item><description>Once <see cref="Enqueue"/> has returned, the entry is visible to every thread:
/// <see cref="IsEmpty"/> returns <see langword="false"/> and <see cref="TryDequeue"/> does not fail until
/// some thread has taken it. (<see cref="TryDequeue"/> may fail while an <see cref="Enqueue"/> is still in
/// progress; the pool handles that case.)</description></item>
/// <item><description><see cref="TryDequeue"/> returns <see langword="false"/> only when it saw no entry, or
/// when every entry it saw was taken by another thread before it could take it. A queue must not fail it
/// spuriously, for example on a lost race, while an entry it saw remains. (Entries that arrive during a failing
/// call may be missed: the pool looks at <see cref="IsEmpty"/> before a worker parks.)</description></item>
/// <item><description>An <see cref="Enqueue"/> or <see cref="TryDequeue"/> that throws
/// <see cref="ThreadInterruptedException"/> (a lock's wait that met an interrupt pending on the calling thread, which
/// may be a worker after an item that left one) has added or removed nothing: the pool calls it again and gives the
/// interrupt back to the thread once it returns.</description></item>
/// </list>
/// <para>The pool calls <see cref="AttachWorker"/> on each worker thread before its first
/// <see cref="TryDequeue"/> and <see cref="DetachWorker"/> after its last, so a queue may keep per-worker
/// state (as the work-stealing queue does). Other threads may call <see cref="TryDequeue"/> too, for example to
/// drain the queue during shutdown.</para>
/// </remarks>
public interface IWorkQueue
{
    /// <summary>Adds an entry. Must not fail for lack of room: an unbounded queue grows.</summary>
    /// <param name="item">The entry to add.</param>
    void Enqueue(in QueuedWorkItem item);

    /// <summary>Removes an entry, if there is one.</summary>
    /// <param name="item">The entry removed, or <see langword="default"/>.</param>
    /// <returns><see langword="true"/> if an entry was removed.</returns>
    bool TryDequeue(out QueuedWorkItem item);

    /// <summary>Whether the queue held no entry at the moment of the call.</summary>
    bool IsEmpty { get; }

    /// <summary>An approximate number of entries; exact when no thread is enqueueing or dequeueing.</summary>
    int Count { get; }

    /// <summary>Called on a pool worker thread before that worker first calls <see cref="TryDequeue"/>.</summary>
    /// <param name="workerIndex">The worker's index, from 0; unique among live workers of the pool.</param>
    void AttachWorker(int workerIndex)
    {
    }

    /// <summary>
    /// Called on a pool worker thread after its last <see cref="TryDequeue"/>, when the worker stops. The pool
    /// calls it only after the worker saw the queue empty.
    /// </summary>
    /// <param name="workerIndex">The worker's index, as given to <see cref="AttachWorker"/>.</param>
    void DetachWorker(int workerIndex)
    {
    }
}
