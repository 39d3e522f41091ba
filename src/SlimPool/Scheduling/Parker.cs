namespace SlimPool.Scheduling;

/// <summary>
/// A one-permit parking spot for one thread: <see cref="Unpark"/> grants the permit (at most one is kept),
/// <see cref="Park"/> blocks until a permit is available and consumes it. An Unpark that comes before the
/// Park is therefore never lost.
/// </summary>
internal sealed class Parker
{
    // A Monitor, not a System.Threading.Lock: Park needs Monitor.Wait.
    private readonly object _gate = new();
    private bool _permit;
    private bool _parked;

    public void Park()
    {
        lock (_gate)
        {
            while (!_permit)
            {
                _parked = true;
                Monitor.Wait(_gate);
                _parked = false;
            }

            _permit = false;
        }
    }

    public void Unpark()
    {
        lock (_gate)
        {
            _permit = true;
            if (_parked)
            {
                Monitor.Pulse(_gate);
            }
        }
    }
}
