namespace SlimPool.Reactive;

/// <summary>A due item's queue call to a pool other than SlimPool's, made inside <see cref="ExecutionContext.Run"/>.</summary>
internal sealed class DueCall(IThreadPool pool, IWorkItem item)
{
    public bool Queued { get; private set; }

    public void Run() => Queued = pool.TryQueue(item);
}
