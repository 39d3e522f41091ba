namespace SlimPool.Queues;

/// <summary>
/// An item of the pool's own that someone is waiting on (<c>SynchronizationContext.Send</c> from outside the pool):
/// when a shutdown abandons it, the pool tells it instead of handing it back, so the waiter ends with an exception
/// rather than waiting for an item that will never run.
/// </summary>
internal interface IAbandonable
{
    /// <summary>The item will not run; called once, instead of running it.</summary>
    void Abandon();
}
