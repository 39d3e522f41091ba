using SlimPool.Queues;

namespace SlimPool.Scheduling;

/// <summary>
/// Watches for starvation: items queued while every worker is busy and no item completes for the timeout (the
/// workers are blocked without saying so). It then starts a spare worker, and keeps checking every timeout while
/// items wait. While nothing waits it is parked, and costs nothing.
/// </summary>
/// <remarks>
/// Arming follows the idle protocol's pattern: the guard announces itself parked (an interlocked write), re-checks
/// the queue, then parks; a producer publishes its item, fences, and reads <c>_parked</c> (see
/// <see cref="OnQueuedWhileAllBusy"/>). One of the two sees the other. The producer only unparks the guard when
/// no worker is idle or searching: otherwise a free worker takes the item, and if that worker then blocks, the
/// next item finds every worker busy and arms the guard.
/// </remarks>
internal sealed class StarvationGuard
{
    private readonly SlimThreadPool _pool;
    private readonly IWorkQueue _queue;
    private readonly int _timeoutMs;
    private readonly Parker _parker = new();
    private readonly Thread _thread;
    private volatile bool _stopping;
    private int _parked;

    public StarvationGuard(SlimThreadPool pool, IWorkQueue queue, int timeoutMs, string name)
    {
        _pool = pool;
        _queue = queue;
        _timeoutMs = timeoutMs;
        _thread = new Thread(Run) { IsBackground = true, Name = name };
        _thread.UnsafeStart();
    }

    /// <summary>Producer side, after publish and fence, when every worker is busy.</summary>
    public void OnQueuedWhileAllBusy()
    {
        if (Volatile.Read(ref _parked) != 0)
        {
            _parker.Unpark();
        }
    }

    public void Stop()
    {
        _stopping = true;
        _parker.Unpark();
    }

    public void Join() => _thread.Join();

    /// <summary>A wake-up with no reason behind it, as a racing producer can cause (tests only).</summary>
    internal void WakeForTests() => _parker.Unpark();

    // Parks for a whole timeout, however many stray permits cut individual parks short: a producer that saw the
    // guard parked a moment ago may unpark it again, and a period cut to nothing would see no progress and start
    // a spare while the workers are doing fine. Only Stop ends the period early.
    private void WaitOnePeriod()
    {
        long start = Environment.TickCount64;
        while (!_stopping)
        {
            long remaining = _timeoutMs - (Environment.TickCount64 - start);
            if (remaining <= 0)
            {
                return;
            }

            _parker.Park((int)remaining);
        }
    }

    private void Run()
    {
        while (!_stopping)
        {
            if (_queue.IsEmpty)
            {
                Interlocked.Exchange(ref _parked, 1); // announce (a full fence), then re-check
                if (_queue.IsEmpty && !_stopping)
                {
                    _parker.Park();
                }

                Volatile.Write(ref _parked, 0);
            }

            // Watch at least one full period after every wake, even if the queue emptied meanwhile: producers can
            // then unpark the guard at most once per timeout, however often the queue flickers empty.
            if (_stopping)
            {
                break; // Stop's permit may have been consumed by the park above (permits do not add up)
            }

            long before = _pool.Progress();
            WaitOnePeriod();
            if (!_stopping && !_queue.IsEmpty && _pool.Progress() == before)
            {
                _pool.TryStartSpare(); // nothing completed for a whole timeout while items waited
            }
        }
    }
}
