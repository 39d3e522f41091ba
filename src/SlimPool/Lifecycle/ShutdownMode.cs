namespace SlimPool;

/// <summary>How <see cref="SlimThreadPool.ShutdownAsync"/> treats the items still queued.</summary>
public enum ShutdownMode
{
    /// <summary>Run every accepted item, then stop. What <see cref="SlimThreadPool.Dispose"/> and <see cref="SlimThreadPool.DisposeAsync"/> do.</summary>
    Drain = 0,

    /// <summary>
    /// Let the items already started finish, run nothing else, and hand the rest back in
    /// <see cref="ShutdownResult.AbandonedItems"/>.
    /// </summary>
    Abandon = 1,
}
