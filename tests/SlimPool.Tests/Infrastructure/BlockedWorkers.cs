namespace SlimPool.Tests.Infrastructure;

/// <summary>
/// Occupies every worker of a pool with an item that waits (at most <see cref="Bounded.Timeout"/>) until
/// released, so a test can queue items that certainly have not started. Use with the starvation guard off.
/// </summary>
internal sealed class BlockedWorkers : IDisposable
{
    private readonly ManualResetEventSlim _release = new();
    private readonly CountdownEvent _finished;

    public BlockedWorkers(SlimThreadPool pool)
    {
        int count = pool.WorkerCount;
        using var started = new CountdownEvent(count);
        _finished = new CountdownEvent(count);
        for (int i = 0; i < count; i++)
        {
            pool.Queue(() =>
            {
                started.Signal();
                _release.Wait(Bounded.Timeout);
                _finished.Signal();
            });
        }

        Bounded.Wait(started, "every worker to start a blocking item");
    }

    /// <summary>Whether the blocking items have all returned.</summary>
    public bool Finished => _finished.IsSet;

    public void Release() => _release.Set();

    public void Dispose() => _release.Set();
}
