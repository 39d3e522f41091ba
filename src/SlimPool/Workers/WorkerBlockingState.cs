using SlimPool.Diagnostics;
namespace SlimPool.Workers;

/// <summary>
/// One worker thread's blocking scopes: how deep it is in them, and which episode (outermost scope) is open. Only
/// the outermost scope counts the worker as blocked (<see cref="WorkerSet.OnBlocked"/>).
/// </summary>
/// <remarks>
/// Touched only by its own worker thread. A scope remembers the depth and episode it opened; disposing it counts only
/// on the thread that opened it, at the depth it opened, in the same episode. So a scope disposed twice, out of order,
/// or on another thread (after an <c>await</c>) changes nothing, and <see cref="EndOfItem"/> closes whatever the item
/// left open: the worker is no longer blocked once the item that blocked it has returned.
/// </remarks>
internal sealed class WorkerBlockingState(WorkerSet workers)
{
    private int _depth;
    private int _episode;

    /// <summary>Opens a scope; returns the (depth, episode) that identifies it.</summary>
    public (int Depth, int Episode) Enter()
    {
        if (_depth++ == 0)
        {
            _episode++;
            workers.OnBlocked();
        }

        return (_depth, _episode);
    }

    /// <summary>Closes the scope opened at (depth, episode), if it is the innermost one open; otherwise does nothing.</summary>
    public void Exit(int depth, int episode)
    {
        if (depth != _depth || episode != _episode || depth == 0)
        {
            return; // already closed, not the innermost, or from an episode that has ended
        }

        if (--_depth == 0)
        {
            workers.OnUnblocked();
            if (SlimPoolEventSource.Log.IsEnabled() && CurrentWorker.Pool is { } pool)
            {
                SlimPoolEventSource.Log.BlockingScopeExit(pool.Name);
            }
        }
    }

    /// <summary>The scopes open now on this worker (0: it is not counted blocked).</summary>
    public int Depth => _depth;

    /// <summary>
    /// After an item run inside another one (a group's item in its turn, an item run inline or by a worker's Dispose):
    /// the scopes it left open, those above <paramref name="depthBefore"/> (the depth when it started), end with it; the
    /// outer item's stay open.
    /// </summary>
    public void EndOfNestedItem(int depthBefore)
    {
        if (_depth > depthBefore)
        {
            _depth = depthBefore;
            if (depthBefore == 0)
            {
                workers.OnUnblocked();
            }
        }
    }

    /// <summary>After each item: a scope the item left open ends with it.</summary>
    public void EndOfItem()
    {
        if (_depth != 0)
        {
            _depth = 0;
            workers.OnUnblocked();
        }
    }
}
