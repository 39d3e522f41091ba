using SlimPool.Workers;

namespace SlimPool.Scheduling;

/// <summary>
/// A one-permit parking spot for one thread: <see cref="Unpark"/> grants the permit (at most one is kept),
/// <see cref="Park()"/> blocks until a permit is available and consumes it. An Unpark that comes before the
/// Park is therefore never lost. Only the pool's own threads park here: an interrupt ends a wait as a spurious wake-up
/// does, and is dropped (<see cref="ThreadInterrupts"/>).
/// </summary>
internal sealed class Parker
{
    // A Monitor, not a System.Threading.Lock: Park needs Monitor.Wait.
    private readonly object _gate = new();
    private bool _permit;
    private bool _parked;

    public void Park()
    {
        using (ThreadInterrupts.Hold(_gate))
        {
            while (!_permit)
            {
                _parked = true;
                ThreadInterrupts.MonitorWait(_gate, Timeout.Infinite);
                _parked = false;
            }

            _permit = false;
        }
    }

    /// <summary>Like <see cref="Park()"/>, giving up after <paramref name="millisecondsTimeout"/>.</summary>
    /// <returns><see langword="true"/> if a permit was consumed; <see langword="false"/> on timeout.</returns>
    public bool Park(int millisecondsTimeout)
    {
        long deadline = Environment.TickCount64 + millisecondsTimeout;
        using (ThreadInterrupts.Hold(_gate))
        {
            while (!_permit)
            {
                long left = deadline - Environment.TickCount64;
                if (left <= 0)
                {
                    return false;
                }

                _parked = true;
                ThreadInterrupts.MonitorWait(_gate, (int)left);
                _parked = false;
            }

            _permit = false;
            return true;
        }
    }

    /// <summary>
    /// Like <see cref="Park(int)"/>, but waits once: it may return early (a spurious wake-up), and it does not stretch the
    /// wait to a clock tick (<see cref="Environment.TickCount64"/>, which <see cref="Park(int)"/> goes by, moves in steps of
    /// a few milliseconds on some systems). For short periodic waits.
    /// </summary>
    /// <returns><see langword="true"/> if a permit was consumed.</returns>
    public bool ParkOnce(int millisecondsTimeout)
    {
        using (ThreadInterrupts.Hold(_gate))
        {
            if (!_permit)
            {
                _parked = true;
                ThreadInterrupts.MonitorWait(_gate, millisecondsTimeout);
                _parked = false;
                if (!_permit)
                {
                    return false;
                }
            }

            _permit = false;
            return true;
        }
    }

    public void Unpark()
    {
        using (ThreadInterrupts.Hold(_gate))
        {
            _permit = true;
            if (_parked)
            {
                Monitor.Pulse(_gate);
            }
        }
    }
}
