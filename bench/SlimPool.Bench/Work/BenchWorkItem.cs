namespace SlimPool.Bench.Work;

/// <summary>
/// A work item both pools take without wrapping: the built-in pool as an <see cref="IThreadPoolWorkItem"/>, SlimPool
/// as an <see cref="IWorkItem"/>. One <see cref="Execute"/> implements both. An instance may be queued many times
/// at once; each queueing runs it once on either pool.
/// </summary>
internal abstract class BenchWorkItem : IThreadPoolWorkItem, IWorkItem
{
    public abstract void Execute();
}
