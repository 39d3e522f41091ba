using SlimPool.Queues;

namespace SlimPool;

/// <summary>Queueing: the <see cref="IThreadPool"/> methods on a group.</summary>
public sealed partial class SlimThreadPoolGroup
{
    /// <inheritdoc />
    public void Queue(Action callback) => Queue(callback, CancellationToken.None);

    /// <inheritdoc />
    public void Queue(Action<object?> callback, object? state) => Queue(callback, state, CancellationToken.None);

    /// <inheritdoc />
    public void Queue(IWorkItem workItem) => Queue(workItem, CancellationToken.None);

    /// <inheritdoc />
    public void Queue(Action callback, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(callback);
        AcceptOrThrow(callback, null, cancellationToken);
    }

    /// <inheritdoc />
    public void Queue(Action<object?> callback, object? state, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(callback);
        AcceptOrThrow(callback, state, cancellationToken);
    }

    /// <inheritdoc />
    public void Queue(IWorkItem workItem, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(workItem);
        AcceptOrThrow(workItem, null, cancellationToken);
    }

    /// <inheritdoc />
    public bool TryQueue(Action callback) => TryQueue(callback, CancellationToken.None);

    /// <inheritdoc />
    public bool TryQueue(Action<object?> callback, object? state) => TryQueue(callback, state, CancellationToken.None);

    /// <inheritdoc />
    public bool TryQueue(IWorkItem workItem) => TryQueue(workItem, CancellationToken.None);

    /// <inheritdoc />
    public bool TryQueue(Action callback, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(callback);
        return TryAccept(callback, null, cancellationToken);
    }

    /// <inheritdoc />
    public bool TryQueue(Action<object?> callback, object? state, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(callback);
        return TryAccept(callback, state, cancellationToken);
    }

    /// <inheritdoc />
    public bool TryQueue(IWorkItem workItem, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(workItem);
        return TryAccept(workItem, null, cancellationToken);
    }

    /// <inheritdoc />
    /// <remarks>The group's items wait in the group's own queue, so <paramref name="preferLocal"/> has no effect.</remarks>
    public void Queue(IThreadPoolWorkItem workItem, bool preferLocal)
    {
        ArgumentNullException.ThrowIfNull(workItem);
        AcceptOrThrow(NativeWorkItems.ExecuteThreadPoolWorkItem, workItem, CancellationToken.None);
    }

    /// <inheritdoc />
    /// <remarks>The group's items wait in the group's own queue, so <paramref name="preferLocal"/> has no effect.</remarks>
    public bool TryQueue(IThreadPoolWorkItem workItem, bool preferLocal)
    {
        ArgumentNullException.ThrowIfNull(workItem);
        return TryAccept(NativeWorkItems.ExecuteThreadPoolWorkItem, workItem, CancellationToken.None);
    }

    /// <inheritdoc />
    /// <remarks>The group's items wait in the group's own queue, so <paramref name="preferLocal"/> has no effect.</remarks>
    public void Queue<TState>(Action<TState> callback, TState state, bool preferLocal)
    {
        ArgumentNullException.ThrowIfNull(callback);
        (object entryCallback, object? entryState) = NativeWorkItems.ForState(callback, state);
        AcceptOrThrow(entryCallback, entryState, CancellationToken.None);
    }

    /// <inheritdoc />
    /// <remarks>The group's items wait in the group's own queue, so <paramref name="preferLocal"/> has no effect.</remarks>
    public bool TryQueue<TState>(Action<TState> callback, TState state, bool preferLocal)
    {
        ArgumentNullException.ThrowIfNull(callback);
        (object entryCallback, object? entryState) = NativeWorkItems.ForState(callback, state);
        return TryAccept(entryCallback, entryState, CancellationToken.None);
    }
}
