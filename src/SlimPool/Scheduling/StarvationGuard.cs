using System.Diagnostics;
using SlimPool.Diagnostics;
using SlimPool.Queues;
using SlimPool.Workers;

namespace SlimPool.Scheduling;

/// <summary>
/// Watches for starvation: items waiting in the queue while no item completes for a whole timeout (the workers are
/// blocked without saying so). It then starts a spare worker, and keeps watching, one timeout at a time, while items
/// wait. While the queue is empty it is parked and costs nothing: no timer runs.
/// </summary>
/// <remarks>
/// <para><b>Arming.</b> Every publish arms the guard, whatever path the item came by (a producer outside the pool, a
/// worker, a task, a continuation) and whatever the workers were doing: after its publish and full fence the
/// producer calls <see cref="OnQueued"/>, which reads <c>_parked</c>. The guard announces itself parked with an
/// interlocked write (a full fence), re-checks the queue, and only then parks. Store-buffer pattern: either the
/// guard's re-check sees the item and it does not park, or the producer sees <c>_parked == 1</c>. Of the producers
/// that see it, the one whose exchange takes it back to 0 unparks the guard; the rest see 0 and pay nothing, so a
/// burst costs one wake-up. While the guard watches, <c>_parked</c> stays 0 and a publish costs one read of a line
/// nobody writes.</para>
/// <para><b>Response.</b> After every wake the guard watches for one whole period, by the clock (stray permits
/// cannot shorten it). At its end, if the queue is not empty, it starts a spare when either holds:</para>
/// <list type="bullet">
/// <item><b>No progress:</b> no item completed during the period. This alone decides against a hang, whatever the
/// workers burn, so an item that waits with no progress gets a new worker within about two timeouts.</item>
/// <item><b>Busy workers on idle cores:</b> every worker stayed busy through the period (none found the queue empty),
/// yet the process used less than <see cref="BlockedCpuShare"/> of the pool's cores (its worker count, at most the
/// processor count) over it. The workers are then blocked, not computing: items that block without saying so while
/// others still complete (two workers blocked 50 ms an item complete one every 25 ms) get workers too, instead of
/// waiting behind the blocked threads for as long as the queue lasts. Workers busy computing keep the cores busy and
/// add nothing; a pool with a worker to spare adds nothing. The process's CPU time is the signal the built-in pool's
/// gate thread uses too (below 80% it injects threads sooner), with a lower bar here (see the constant). The guard
/// reads it only while it watches, twice a period. Growth stops once the cores are busy, the queue empties or the
/// ceiling is reached.</item>
/// </list>
/// <para>Either way the pool grows by at most one worker per timeout (up to
/// <see cref="SlimThreadPoolOptions.MaxWorkers"/>).</para>
/// <para><b>Model.</b> <c>StarvationGuard.pml</c> beside this file checks the arming with Spin; after a period with
/// progress it lets the second rule go either way, since the clock and the CPU time decide it.</para>
/// </remarks>
internal sealed class StarvationGuard
{
    /// <summary>
    /// Below this share of the pool's cores used by the whole process over a period, workers that stayed busy through
    /// it count as blocked rather than computing. Low on purpose: on a shared two-core VM, two threads spinning
    /// without pause were credited with 1.0 to 1.9 cores over 30 ms windows (the host takes whole virtual CPUs
    /// away), so a share near the built-in pool's 80% would add workers to pools that compute.
    /// </summary>
    internal const double BlockedCpuShare = 0.25;

    private readonly WorkerSet _workers;
    private readonly IWorkQueue _queue;
    private readonly int _timeoutMs;
    private readonly Parker _parker = new();
    private readonly Thread _thread;
    private readonly string _poolName;
    private readonly int _cores; // the CPUs the pool means to keep busy: its worker count, at most the processor count
    private long[] _marks = [];  // the guard thread's own: each slot's idle count when the period began
    private volatile bool _stopping;
    private PaddedInt _parked; // 1 while the guard is parked or about to park; read by every publish

    public StarvationGuard(WorkerSet workers, IWorkQueue queue, int timeoutMs, string poolName)
    {
        _poolName = poolName;
        _workers = workers;
        _queue = queue;
        _timeoutMs = timeoutMs;
        _cores = Math.Min(Environment.ProcessorCount, workers.WorkerCount);
        _thread = new Thread(Run) { IsBackground = true, Name = $"{poolName} guard" };
        _thread.UnsafeStart();
    }

    /// <summary>Producer side, after the item's publish and a full fence.</summary>
    public void OnQueued()
    {
        if (Volatile.Read(ref _parked.Value) != 0 && Interlocked.Exchange(ref _parked.Value, 0) != 0)
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

    /// <summary>A wake-up with no reason behind it, such as a producer racing the guard's own return can leave.</summary>
    internal void Wake() => _parker.Unpark();

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
                Interlocked.Exchange(ref _parked.Value, 1); // announce (a full fence), then re-check
                if (_queue.IsEmpty && !_stopping)
                {
                    _parker.Park();
                }

                Volatile.Write(ref _parked.Value, 0);
            }

            // Watch one full period after every wake, even if the queue emptied meanwhile: producers then unpark the
            // guard at most once per timeout, however often the queue flickers empty.
            if (_stopping)
            {
                break; // Stop's permit may have been consumed by the park above (permits do not add up)
            }

            long before = _workers.Mark(ref _marks);
            long start = Stopwatch.GetTimestamp();
            TimeSpan cpuBefore = Environment.CpuUsage.TotalTime;
            WaitOnePeriod();
            if (_stopping || _queue.IsEmpty)
            {
                continue;
            }

            bool itemsCompleted = _workers.Progress() != before;
            if (!itemsCompleted || BusyOnIdleCores(start, cpuBefore))
            {
                if (SlimPoolEventSource.Log.IsEnabled())
                {
                    SlimPoolEventSource.Log.StarvationGuardFired(_poolName, itemsCompleted);
                }

                _workers.TryStartSpare();
            }
        }
    }

    // Items wait while every worker stayed busy through the period and the process left cores idle: the workers are
    // blocked, not computing, so another worker has a core to run on. Other threads of the process only add CPU time,
    // which makes the test stricter, never looser.
    private bool BusyOnIdleCores(long start, TimeSpan cpuBefore)
    {
        if (!_workers.AllBusySince(_marks))
        {
            return false;
        }

        TimeSpan cpu = Environment.CpuUsage.TotalTime - cpuBefore;
        TimeSpan wall = Stopwatch.GetElapsedTime(start);
        return cpu.Ticks < BlockedCpuShare * _cores * wall.Ticks;
    }
}
