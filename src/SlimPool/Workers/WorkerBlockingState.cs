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
/// blocked once the item that blocked it has returned. A spare that retired is no longer counted live, so a scope its
/// exit hook opens is not counted blocked either (<see cref="OnRetired"/>): counted, it left the live workers one short
/// of covering it, which started a spare that retired and ran the same hook, one thread an idle timeout for ever. Nor is a
/// scope the start hook opens, before the worker runs any item (<see cref="InLoop"/>): counted, it left the live workers
/// one short of covering a worker that serves nothing yet, and the spare started for it ran the same hook, one spare
/// after another for as long as the hooks blocked.
/// </remarks>
internal sealed class WorkerBlockingState(WorkerSet workers)
{
    private int _depth;
    private long _serial;                   // the last serial given to a scope: serials only grow
    private long[] _serialAt = new long[4]; // [depth]: the serial of the scope open at that depth (1 to _depth)
    private bool _inLoop;                   // between the worker's thread hooks: its scopes are items' (WorkerSet.OnBlocked)
    private bool _loopStarted;              // the start hook has returned: scopes from now on are counted (see the remarks)
    private bool _counted;                  // the outermost open scope is counted in WorkerSet's blocked count
    private bool _retired;                  // the spare has retired: its scopes are counted no more

    /// <summary>
    /// The worker runs items from now on (after its start hook), or no longer (before its exit hook). A scope the start
    /// hook left open ends with the hook, as one an item leaves open ends with the item: uncounted, it would otherwise
    /// hold the outermost depth, and the first item's own scopes, nested under it, would never be counted.
    /// </summary>
    public bool InLoop
    {
        set
        {
            if (value && !_loopStarted && _depth != 0)
            {
                Array.Clear(_serialAt, 1, _depth);
                _depth = 0;
            }

            _inLoop = value;
            _loopStarted |= value;
        }
    }

    /// <summary>The last serial given to a scope: read before an item runs inside another (<see cref="EndOfNestedItem"/>).</summary>
    public long Serial => _serial;

    /// <summary>The spare has retired (it has left the live count): what it opens from now on is not counted blocked.</summary>
    public void OnRetired() => _retired = true;

    /// <summary>Opens a scope; returns the (depth, serial) that identifies it.</summary>
    public (int Depth, long Serial) Enter()
    {
        int depth = ++_depth;
        if (depth == _serialAt.Length)
        {
            Array.Resize(ref _serialAt, depth * 2);
        }

        long serial = ++_serial;
        _serialAt[depth] = serial;
        if (depth == 1 && _loopStarted && !_retired)
        {
            _counted = true;
            workers.OnBlocked(inItem: _inLoop);
        }

        return (depth, serial);
    }

    /// <summary>Closes the scope opened at (depth, serial), if it is the innermost one open; otherwise does nothing.</summary>
    public void Exit(int depth, long serial)
    {
        if (depth == 0 || depth != _depth || _serialAt[depth] != serial)
        {
            return; // already closed, not the innermost, or ended with its item
        }

        _serialAt[depth] = 0;
        if (--_depth == 0)
        {
            Unblocked();
            if (SlimPoolEventSource.Log.IsEnabled() && CurrentWorker.Pool is { } pool)
            {
                SlimPoolEventSource.Log.BlockingScopeExit(pool.Name);
            }
        }
    }

    /// <summary>
    /// After an item run inside another one (a group's item in its turn, an item run inline or by a worker's Dispose):
    /// the scopes it opened, those with a serial above <paramref name="serialBefore"/> (<see cref="Serial"/> when it
    /// started), end with it, even where it closed one of the outer item's and opened its own at that depth; the outer
    /// item's scopes still open stay so. Scopes form a stack, so the nested item's are the ones on top.
    /// </summary>
    public void EndOfNestedItem(long serialBefore)
    {
        int depth = _depth;
        while (depth > 0 && _serialAt[depth] > serialBefore)
        {
            _serialAt[depth--] = 0;
        }

        if (depth != _depth)
        {
            _depth = depth;
            if (depth == 0)
            {
                Unblocked();
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
            Unblocked();
        }
    }

    // The outermost scope has ended: the worker leaves the blocked count if that scope entered it.
    private void Unblocked()
    {
        if (_counted)
        {
            _counted = false;
            workers.OnUnblocked();
        }
    }
}
