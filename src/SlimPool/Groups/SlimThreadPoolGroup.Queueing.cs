namespace SlimPool;

/// <summary>The cores behind the <see cref="IThreadPool"/> overloads (<see cref="ThreadPoolBase"/>): a group has one queue, so <c>preferLocal</c> changes nothing.</summary>
public sealed partial class SlimThreadPoolGroup
{
    private protected override void QueueItem(object callback, object? state, CancellationToken cancellationToken) =>
        AcceptOrThrow(callback, state, cancellationToken);

    private protected override bool TryQueueItem(object callback, object? state, CancellationToken cancellationToken) =>
        TryAccept(callback, state, cancellationToken);

    private protected override void QueueItem(object callback, object? state, bool preferLocal) =>
        AcceptOrThrow(callback, state, CancellationToken.None);

    private protected override bool TryQueueItem(object callback, object? state, bool preferLocal) =>
        TryAccept(callback, state, CancellationToken.None);
}
