namespace SlimPool.Queues;

/// <summary>A pool's own wrapper around a user's item (for cancellation or timing): exposes what it wraps.</summary>
internal interface IWrappedWorkItem : IWorkItem
{
    /// <summary>The callback as the user queued it.</summary>
    object Callback { get; }

    /// <summary>The state as the user queued it.</summary>
    object? State { get; }

    /// <summary>
    /// Runs the user's item for a caller that took it back from an abandoning shutdown
    /// (<see cref="AbandonedWorkItem.Run"/>): a cancelled token still skips it, but nothing is recorded on the pool (no
    /// skip counted, no queue wait), since the pool no longer owns the item.
    /// </summary>
    void ExecuteHandedBack();
}
