namespace SlimPool;

/// <summary>A blocking scope from <see cref="SlimThreadPool.EnterBlocking"/>; dispose it when the blocking ends.</summary>
public readonly struct BlockingScope : IDisposable
{
    private readonly SlimThreadPool? _pool;

    internal BlockingScope(SlimThreadPool pool) => _pool = pool;

    /// <summary>Ends the scope (a no-op for the scope returned off the pool).</summary>
    public void Dispose() => _pool?.ExitBlocking();
}
