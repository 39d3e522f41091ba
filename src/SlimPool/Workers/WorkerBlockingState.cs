using SlimPool.Diagnostics;
namespace SlimPool.Workers;

/// <summary>
/// One worker thread's blocking scopes: how deep it is in them, and which scope is open at each depth. Only the
/// outermost scope counts the worker as blocked (<see cref="WorkerSet.OnBlocked"/>).
/// </summary>
/// <remarks>
/// Touched only by its own worker thread. Each scope gets a serial number of its own, kept for its depth while it is
/// open; disposing it counts only on the thread that opened it, at the depth it opened, while that depth still holds its
/// serial. So a scope disposed twice, out of order, on another thread (after an <c>await</c>), or after the item that
/// opened it ended (<see cref="EndOfItem"/>, <see cref="EndOfNestedItem"/>) changes nothing, even once a later scope
/// opens at the same depth; and <see cref="EndOfItem"/> closes whatever the item left open: the worker is no longer
/// blocked once the item that blocked it has returned.
/// </remarks>
internal sealed class WorkerBlockingState(WorkerSet workers)
{
    private int _depth;
    private int _serial;              // the last serial given to a scope
    private int[] _serialAt = new int[4]; // [depth]: the serial of the scope open at that depth (1 to _depth)

    /// <summary>The scopes open now on this worker (0: it is not counted blocked).</summary>
    public int Depth => _depth;

    /// <summary>Opens a scope; returns the (depth, serial) that identifies it.</summary>
    public (int Depth, int Serial) Enter()
    {
        int depth = ++_depth;
        if (depth == _serialAt.Length)
        {
            Array.Resize(ref _serialAt, depth * 2);
        }

        int serial = ++_serial;
        _serialAt[depth] = serial;
        if (depth == 1)
        {
            workers.OnBlocked();
        }

        return (depth, serial);
    }

    /// <summary>Closes the scope opened at (depth, serial), if it is the innermost one open; otherwise does nothing.</summary>
    public void Exit(int depth, int serial)
    {
        if (depth == 0 || depth != _depth || _serialAt[depth] != serial)
        {
            return; // already closed, not the innermost, or ended with its item
        }

        _serialAt[depth] = 0;
        if (--_depth == 0)
        {
            workers.OnUnblocked();
            if (SlimPoolEventSource.Log.IsEnabled() && CurrentWorker.Pool is { } pool)
            {
                SlimPoolEventSource.Log.BlockingScopeExit(pool.Name);
            }
        }
    }

    /// <summary>
    /// After an item run inside another one (a group's item in its turn, an item run inline or by a worker's Dispose):
    /// the scopes it left open, those above <paramref name="depthBefore"/> (the depth when it started), end with it; the
    /// outer item's stay open.
    /// </summary>
    public void EndOfNestedItem(int depthBefore)
    {
        if (_depth > depthBefore)
        {
            Array.Clear(_serialAt, depthBefore + 1, _depth - depthBefore);
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
            Array.Clear(_serialAt, 1, _depth);
            _depth = 0;
            workers.OnUnblocked();
        }
    }
}
