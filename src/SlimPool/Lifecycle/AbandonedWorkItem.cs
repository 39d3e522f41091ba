using SlimPool.Queues;

namespace SlimPool;

/// <summary>An accepted item that an abandoning <see cref="SlimThreadPool.ShutdownAsync"/> handed back unrun.</summary>
public readonly struct AbandonedWorkItem
{
    private readonly QueuedWorkItem _item;

    internal AbandonedWorkItem(in QueuedWorkItem item) => _item = item;

    /// <summary>
    /// The callback as it was queued: an <see cref="Action"/>, an <see cref="Action{T}"/> of <see cref="object"/>,
    /// a <see cref="SendOrPostCallback"/>, or an <see cref="IWorkItem"/> (internal callbacks for tasks and
    /// continuations look like the delegate types).
    /// </summary>
    public object Callback => _item.UserCallback;

    /// <summary>The state queued with <see cref="Callback"/>, or <see langword="null"/>.</summary>
    public object? State => _item.UserState;

    /// <summary>
    /// Runs the item on the calling thread, in the <see cref="ExecutionContext"/> it was queued with if the pool
    /// flowed one. An item whose cancellation token is cancelled is skipped. Exceptions propagate to the caller.
    /// </summary>
    public void Run()
    {
        if (_item.Context is { } context)
        {
            QueuedWorkItem item = _item;
            ExecutionContext.Run(context, static s => ((QueuedWorkItem)s!).Invoke(), item);
            return;
        }

        _item.Invoke();
    }
}
