namespace SlimPool.Queues;

/// <summary>
/// An item queued with a cancellation token that can be cancelled: skipped (and counted) if the token is
/// cancelled before the item starts. Allocated only for such tokens; <see cref="CancellationToken.None"/> takes
/// the allocation-free path.
/// </summary>
internal sealed class CancellableWorkItem(object callback, object? state, CancellationToken cancellationToken, Action onSkipped)
    : IWrappedWorkItem
{
    public object Callback => callback;

    public object? State => state;

    public void ExecuteHandedBack()
    {
        if (!cancellationToken.IsCancellationRequested)
        {
            new QueuedWorkItem(callback, state, context: null).Invoke();
        }
    }

    public void Execute()
    {
        if (cancellationToken.IsCancellationRequested)
        {
            onSkipped();
            return;
        }

        new QueuedWorkItem(callback, state, context: null).Invoke();
    }
}
