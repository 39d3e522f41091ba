using SlimPool.Workers;

namespace SlimPool;

/// <summary>A blocking scope from <see cref="SlimThreadPool.EnterBlocking"/>; dispose it when the blocking ends.</summary>
/// <remarks>
/// Disposing is idempotent and thread-safe in effect: only the first dispose, on the thread that entered the scope,
/// ends it. A scope still open when the item that entered it returns (for example one disposed on another thread after
/// an <c>await</c>) ends with that item.
/// </remarks>
public readonly struct BlockingScope : IDisposable
{
    private readonly WorkerBlockingState? _state;
    private readonly int _depth;
    private readonly long _serial;

    internal BlockingScope(WorkerBlockingState state, int depth, long serial)
    {
        _state = state;
        _depth = depth;
        _serial = serial;
    }

    /// <summary>Ends the scope (a no-op for the scope returned off the pool, and for a scope already ended).</summary>
    public void Dispose()
    {
        if (_state is not null && ReferenceEquals(CurrentWorker.Blocking, _state))
        {
            _state.Exit(_depth, _serial);
        }
    }
}
