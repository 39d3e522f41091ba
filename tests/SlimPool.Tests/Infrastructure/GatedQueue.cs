using SlimPool.Queues;

namespace SlimPool.Tests.Infrastructure;

/// <summary>
/// A lock-free work queue whose next enqueue can be held (<see cref="HoldNextEnqueue"/>) until <see cref="Release"/>: a
/// producer stopped between its acceptance and its publish, to widen a race with a shutdown on purpose.
/// </summary>
internal sealed class GatedQueue : IWorkQueue
{
    private readonly LockFreeWorkQueue _inner = new();
    private readonly ManualResetEventSlim _release = new(true);
    private int _hold;

    public ManualResetEventSlim Held { get; } = new();

    /// <summary>A pool of one worker on this queue, without a starvation guard (no spare runs what the test holds).</summary>
    public SlimThreadPool CreatePool(Action<SlimThreadPoolOptions>? configure = null)
    {
        var options = new SlimThreadPoolOptions
        {
            WorkerCount = 1,
            QueueFactory = () => this,
            StarvationTimeout = Timeout.InfiniteTimeSpan,
        };
        configure?.Invoke(options);
        return new SlimThreadPool(options);
    }

    public bool IsEmpty => _inner.IsEmpty;

    public int Count => _inner.Count;

    public void HoldNextEnqueue()
    {
        _release.Reset();
        Volatile.Write(ref _hold, 1);
    }

    public void Release() => _release.Set();

    public void Enqueue(in QueuedWorkItem item)
    {
        if (Interlocked.Exchange(ref _hold, 0) == 1)
        {
            Held.Set();
            _release.Wait(Bounded.Timeout);
        }

        _inner.Enqueue(item);
    }

    public bool TryDequeue(out QueuedWorkItem item) => _inner.TryDequeue(out item);
}
