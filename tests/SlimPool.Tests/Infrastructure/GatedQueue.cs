using SlimPool.Queues;

namespace SlimPool.Tests.Infrastructure;

/// <summary>
/// A lock-free work queue whose next enqueue can be held (<see cref="HoldNextEnqueue"/>) until <see cref="Release"/>: a
/// producer stopped between its acceptance and its publish, to widen a race with a shutdown on purpose. The next enqueue
/// can also be held just after its entry went in (<see cref="HoldNextAfterEnqueue"/>, until <see cref="ReleaseAfter"/>:
/// a producer preempted right after its publish), or made to throw (<see cref="ThrowOnNextEnqueue"/>).
/// </summary>
internal sealed class GatedQueue : IWorkQueue
{
    private readonly LockFreeWorkQueue _inner = new();
    private readonly ManualResetEventSlim _release = new(true);
    private readonly ManualResetEventSlim _releaseAfter = new(true);
    private int _hold, _holdAfter, _throwNext;

    public ManualResetEventSlim Held { get; } = new();

    public ManualResetEventSlim HeldAfter { get; } = new();

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

    public void HoldNextAfterEnqueue()
    {
        _releaseAfter.Reset();
        Volatile.Write(ref _holdAfter, 1);
    }

    public void ReleaseAfter() => _releaseAfter.Set();

    public void ThrowOnNextEnqueue() => Volatile.Write(ref _throwNext, 1);

    public void Enqueue(in QueuedWorkItem item)
    {
        if (Interlocked.Exchange(ref _throwNext, 0) == 1)
        {
            throw new InsufficientExecutionStackException("a failure inside the pool's enqueue, on purpose");
        }

        if (Interlocked.Exchange(ref _hold, 0) == 1)
        {
            Held.Set();
            _release.Wait(Bounded.Timeout);
        }

        _inner.Enqueue(item);
        if (Interlocked.Exchange(ref _holdAfter, 0) == 1)
        {
            HeldAfter.Set();
            _releaseAfter.Wait(Bounded.Timeout);
        }
    }

    public bool TryDequeue(out QueuedWorkItem item) => _inner.TryDequeue(out item);
}
