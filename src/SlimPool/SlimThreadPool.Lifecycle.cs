using SlimPool.Diagnostics;

namespace SlimPool;

/// <summary>Shutdown (drain or abandon), disposal, and waiting for the pool to go idle (see ShutdownCoordinator, IdleTracker).</summary>
public sealed partial class SlimThreadPool
{
    /// <summary>
    /// Stops accepting work and shuts the pool down. <see cref="ShutdownMode.Drain"/> runs every accepted item;
    /// <see cref="ShutdownMode.Abandon"/> lets the items already started finish and hands the others back.
    /// Either way, every accepted item is run or handed back, never lost, and afterwards queueing fails as
    /// after <see cref="Dispose"/>.
    /// </summary>
    /// <param name="mode">Whether to drain or abandon the queued items.</param>
    /// <param name="cancellationToken">
    /// Turns a drain into an abandon when cancelled (a host's shutdown timeout, for example); a token already
    /// cancelled abandons at once. Once cancelled, the returned task completes without waiting for the items still
    /// running (<see cref="ShutdownResult.RunningWorkItemCount"/> counts them; they finish on their workers, which
    /// then exit). It never makes the task end cancelled: the items handed back are in its result.
    /// </param>
    /// <returns>
    /// A task that completes when the workers have exited, with the items not run. Every call returns the same
    /// outcome: a later <see cref="ShutdownMode.Abandon"/> (or cancelled token) can still turn a drain in
    /// progress into an abandon. Do not block on it from one of this pool's workers.
    /// </returns>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="mode"/> is not a defined <see cref="ShutdownMode"/>.</exception>
    public Task<ShutdownResult> ShutdownAsync(ShutdownMode mode, CancellationToken cancellationToken = default)
    {
        if (mode is not (ShutdownMode.Drain or ShutdownMode.Abandon))
        {
            throw new ArgumentOutOfRangeException(nameof(mode), mode, $"{nameof(mode)} must be {nameof(ShutdownMode.Drain)} or {nameof(ShutdownMode.Abandon)}.");
        }

        TraceShutdownRequested(mode.ToString());
        return _shutdown.ShutdownAsync(mode, cancellationToken);
    }

    /// <summary>
    /// Stops accepting work, runs every accepted item, and waits for the workers to exit (a drain). Idempotent. On
    /// one of this pool's workers it runs the remaining items on that worker and returns without waiting for it; inside
    /// an item that such a call (or the shutdown itself) runs, it returns at once, and the call running that item runs
    /// the rest.
    /// </summary>
    public void Dispose()
    {
        TraceShutdownRequested("Dispose");
        _shutdown.Dispose(IsOwnWorker);
    }

    /// <summary>Like <see cref="Dispose"/> (a drain), but waits for the workers asynchronously.</summary>
    /// <returns>A task that completes when every accepted item has run and the workers have exited.</returns>
    public ValueTask DisposeAsync()
    {
        TraceShutdownRequested("DisposeAsync");
        return _shutdown.DisposeAsync(IsOwnWorker);
    }

    /// <summary>
    /// Completes when nothing is queued and no worker is running an item (at a moment when that held), or once
    /// the pool has shut down. A pool that is idle now gives a completed task.
    /// </summary>
    /// <param name="cancellationToken">Stops waiting: the task then ends cancelled.</param>
    /// <returns>A task that completes when the pool is idle.</returns>
    /// <remarks>Items queued after the moment observed are not waited for. Called from one of this pool's own
    /// items it cannot complete before that item returns, so do not block on it there.</remarks>
    public Task WaitForIdleAsync(CancellationToken cancellationToken = default) => _idle.WaitForIdleAsync(cancellationToken);

    private void TraceShutdownRequested(string how)
    {
        if (SlimPoolEventSource.Log.IsEnabled())
        {
            SlimPoolEventSource.Log.ShutdownRequested(_name, how);
        }
    }
}
