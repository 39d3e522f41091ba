namespace SlimPool.Queues;

/// <summary>A pool's own wrapper around a user's item (for cancellation or timing): exposes what it wraps.</summary>
internal interface IWrappedWorkItem : IWorkItem
{
    /// <summary>The callback as the user queued it.</summary>
    object Callback { get; }

    /// <summary>The state as the user queued it.</summary>
    object? State { get; }
}
