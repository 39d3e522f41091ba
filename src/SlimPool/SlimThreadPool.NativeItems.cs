namespace SlimPool;

/// <summary>The cores behind the <see cref="IThreadPool"/> overloads (<see cref="ThreadPoolBase"/>).</summary>
public sealed partial class SlimThreadPool
{
    // An item queued on one of the pool's workers goes to that worker's own slot unless the caller says otherwise (the
    // built-in pool's shapes, preferLocal false): the shared queue, behind what is there.
    private protected override void QueueItem(object callback, object? state, CancellationToken cancellationToken) =>
        QueueCore(callback, state, cancellationToken);

    private protected override bool TryQueueItem(object callback, object? state, CancellationToken cancellationToken) =>
        TryQueueCore(callback, state, cancellationToken);

    private protected override void QueueItem(object callback, object? state, bool preferLocal) =>
        QueueCore(callback, state, CancellationToken.None, preferLocal);

    private protected override bool TryQueueItem(object callback, object? state, bool preferLocal) =>
        TryQueueCore(callback, state, CancellationToken.None, preferLocal);
}
