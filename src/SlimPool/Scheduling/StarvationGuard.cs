using System.Diagnostics;
using SlimPool.Diagnostics;
using SlimPool.Queues;
using SlimPool.Workers;

namespace SlimPool.Scheduling;

/// <summary>
/// Watches for starvation: items waiting in the queue while the workers are blocked without saying so. It then starts
/// a spare worker, and keeps watching, one timeout at a time, while items wait. While the queue is empty it is parked
/// and costs nothing: no timer runs.
/// </summary>
/// <remarks>
/// <para><b>Arming.</b> Every publish arms the guard, whatever path the item came by (a producer outside the pool, a
/// worker, a task, a continuation) and whatever the workers were doing: after its publish and full fence the
/// producer calls <see cref="OnQueued"/>, which reads the guard's announcement (<see cref="AnnouncedParker"/>). The
/// guard announces itself parked with an interlocked write (a full fence), re-checks the queue, and only then parks.
/// Store-buffer pattern: either the guard's re-check sees the item and it does not park, or the producer sees the
/// announcement. Of the producers that see it, the one whose exchange takes it back unparks the guard; the rest pay
/// nothing, so a burst costs one wake-up. While the guard watches, there is no announcement and a publish costs one
/// read of a line nobody writes.</para>
/// <para><b>What it reads.</b> After every wake the guard watches for one whole period, by the clock (stray permits
/// cannot shorten it): the timeout, or the cgroup quota's enforcement period where that is longer
/// (<see cref="PeriodMs"/>). It reads, at both ends, the workers' progress and busy flags and each worker's own CPU clock
/// (<see cref="WorkerClocks"/>). A worker is <i>blocked</i> when it is not runnable now and, if it stayed busy through
/// the period, was runnable (on a CPU or waiting in a run queue) for less than a quarter of it; otherwise it is
/// <i>runnable</i>: computing, or waiting for a CPU that more threads than cores or a cgroup's quota keeps from it,
/// where another thread would only queue behind it. Cores are <see cref="EffectiveCores"/>: the processor count, at
/// most the cgroup's quota rounded up, re-read at most once a second.</para>
/// <para><b>Response.</b> At the period's end, if the queue is not empty, it starts a spare when
/// <see cref="AddsSpare"/> says so:</para>
/// <list type="bullet">
/// <item><b>No progress</b> (no item completed in the period): when at least half the workers read were blocked (a
/// worker parked while items wait counts as blocked), or the pool has fewer than <see cref="ComputeBoundSpares"/>
/// threads above its worker count. So a hang of
/// blocked workers gets a worker every timeout, while workers that compute or wait for a CPU (a long CPU-bound item, a
/// spent quota) get at most <see cref="ComputeBoundSpares"/>: growth that would only add threads to the run queue.
/// The unkind part: items that spin on a CPU until a queued item runs (a CPU livelock) get only that many too.</item>
/// <item><b>Blocked though items complete</b>: every worker stayed busy through the period, more than half of those
/// sampled were blocked, and fewer workers were runnable than the pool means to keep busy (its worker count, at most
/// the cores). Items that block while others still complete (two workers blocked 50 ms an item complete one every
/// 25 ms) get workers, whatever other threads of the process compute; workers that compute, or wait for a CPU, add
/// nothing.</item>
/// </list>
/// <para>Where threads have no readable clock (not Linux, no schedstat) it falls back to the process's CPU time: the
/// first rule fires on no progress alone, the second when every worker stayed busy and the process used under
/// <see cref="BlockedCpuShare"/> of the pool's cores. Either way the pool grows by at most one worker per timeout (up
/// to <see cref="SlimThreadPoolOptions.MaxWorkers"/>).</para>
/// <para><b>Model.</b> <c>StarvationGuard.pml</c> beside this file checks the arming and the first rule's choice with
/// Spin, with items that block for ever or compute for ever; it lets the second rule go either way.</para>
/// </remarks>
internal sealed class StarvationGuard
{
    /// <summary>
    /// The most spares the guard adds above the worker count while the workers are runnable (computing or waiting for a
    /// CPU) and no item completes: CPU-bound work adds at most this many threads.
    /// </summary>
    internal const int ComputeBoundSpares = 1;

    /// <summary>
    /// Without per-thread clocks only: below this share of the pool's cores used by the whole process over a period,
    /// workers that stayed busy through it count as blocked. Low on purpose: on a shared two-core VM, two threads
    /// spinning without pause were credited with 1.0 to 1.9 cores over 30 ms windows.
    /// </summary>
    internal const double BlockedCpuShare = 0.25;

    private readonly WorkerSet _workers;
    private readonly IWorkQueue _queue;
    private readonly int _timeoutMs;
    private readonly AnnouncedParker _parker = new(); // its announcement is read by every publish (OnQueued)
    private readonly Thread _thread;
    private readonly string _poolName;
    private readonly EffectiveCores _cores = new();        // the guard thread's own
    private readonly WorkerClocks? _clocks = ThreadCpuClock.IsSupported ? new() : null; // the guard thread's own
    private long[] _marks = [];  // the guard thread's own: each slot's idle count when the period began
    private volatile bool _stopping;

    public StarvationGuard(WorkerSet workers, IWorkQueue queue, int timeoutMs, string poolName)
    {
        _poolName = poolName;
        _workers = workers;
        _queue = queue;
        _timeoutMs = timeoutMs;
        _thread = new Thread(Run) { IsBackground = true, Name = $"{poolName} guard" };
        _thread.UnsafeStart();
    }

    /// <summary>Producer side, after the item's publish and a full fence.</summary>
    public void OnQueued()
    {
        _parker.WakeIfParked();
    }

    public void Stop()
    {
        _stopping = true;
        _parker.Unpark();
    }

    public void Join() => _thread.Join();

    /// <summary>A wake-up with no reason behind it, such as a producer racing the guard's own return can leave.</summary>
    internal void Wake() => _parker.Unpark();

    // Parks for a whole period, however many stray permits cut individual parks short: a producer that saw the
    // guard parked a moment ago may unpark it again, and a period cut to nothing would see no progress and start
    // a spare while the workers are doing fine. Only Stop ends the period early.
    private void WaitOnePeriod(int periodMs)
    {
        long start = Environment.TickCount64;
        while (!_stopping)
        {
            long remaining = periodMs - (Environment.TickCount64 - start);
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
                _parker.Announce(); // a full fence, then re-check
                if (_queue.IsEmpty && !_stopping)
                {
                    _parker.Park();
                }

                _parker.Withdraw();
            }

            // Watch one full period after every wake, even if the queue emptied meanwhile: producers then unpark the
            // guard at most once per timeout, however often the queue flickers empty.
            if (_stopping)
            {
                break; // Stop's permit may have been consumed by the park above (permits do not add up)
            }

            long before = _workers.Mark(ref _marks);
            long start = Stopwatch.GetTimestamp();
            TimeSpan cpuBefore = _clocks is null ? Environment.CpuUsage.TotalTime : default;
            _clocks?.Begin(_workers);
            WaitOnePeriod(PeriodMs(_timeoutMs, _cores.QuotaPeriod(Environment.TickCount64)));
            if (_stopping || _queue.IsEmpty)
            {
                continue;
            }

            TimeSpan wall = Stopwatch.GetElapsedTime(start);
            WorkerPeriod period = _clocks?.End(_workers, (long)wall.TotalNanoseconds) ?? WorkerPeriod.Unknown;
            bool itemsCompleted = _workers.Progress() != before;
            bool allBusy = _workers.AllBusySince(_marks);
            int cores = _cores.Get(Environment.TickCount64);
            bool processIdle = !period.IsKnown && allBusy && itemsCompleted
                && (Environment.CpuUsage.TotalTime - cpuBefore).Ticks < BlockedCpuShare * Math.Min(cores, _workers.WorkerCount) * wall.Ticks;
            if (AddsSpare(itemsCompleted, allBusy, period, processIdle, _workers.LiveCount, _workers.WorkerCount, cores))
            {
                if (SlimPoolEventSource.Log.IsEnabled())
                {
                    SlimPoolEventSource.Log.StarvationGuardFired(_poolName, itemsCompleted, period.Blocked, period.Sampled);
                }

                _workers.TryStartSpare();
            }
        }
    }

    /// <summary>
    /// How long the guard watches: the timeout, or the cgroup quota's enforcement period where that is longer. The
    /// quota holds every thread of the process back once a period's share is used (a 0.2 CPU quota: 80 ms of every
    /// 100), and a shorter watch can fall wholly inside such a stretch, where nothing completes and the workers wait on
    /// each other (a pending wake, a collection, a lock) as if blocked. Any stretch of a whole enforcement period
    /// holds the quota's CPU time.
    /// </summary>
    /// <param name="timeoutMs">The pool's starvation timeout.</param>
    /// <param name="quotaPeriod">The quota's enforcement period (<see cref="EffectiveCores.QuotaPeriod"/>); zero without one.</param>
    internal static int PeriodMs(int timeoutMs, TimeSpan quotaPeriod) =>
        (int)Math.Max(timeoutMs, Math.Min(Math.Ceiling(quotaPeriod.TotalMilliseconds), int.MaxValue));

    /// <summary>
    /// The guard's decision at the end of a period in which items still wait (see the remarks above).
    /// </summary>
    /// <param name="itemsCompleted">Whether any item completed in the period.</param>
    /// <param name="allBusy">Whether every live worker stayed busy through it.</param>
    /// <param name="period">The workers' clocks (<see cref="WorkerPeriod.Unknown"/> without per-thread clocks).</param>
    /// <param name="processIdle">Without clocks only: the process used under <see cref="BlockedCpuShare"/> of the cores.</param>
    /// <param name="live">Worker threads alive, spares included.</param>
    /// <param name="workerCount">The permanent workers.</param>
    /// <param name="cores">The effective cores (<see cref="EffectiveCores"/>).</param>
    internal static bool AddsSpare(bool itemsCompleted, bool allBusy, WorkerPeriod period, bool processIdle, int live, int workerCount, int cores)
    {
        if (!period.IsKnown)
        {
            return !itemsCompleted || (allBusy && processIdle);
        }

        if (!itemsCompleted)
        {
            // Blocked workers (at least half of those sampled, or none could be read) get a spare every timeout;
            // runnable ones at most ComputeBoundSpares above the worker count.
            return 2 * period.Blocked >= period.Sampled || live < workerCount + ComputeBoundSpares;
        }

        // Unsampled workers count as runnable: the rule adds nothing it cannot see.
        int runnable = live - period.Blocked;
        return allBusy && 2 * period.Blocked > period.Sampled && runnable < Math.Min(workerCount, cores);
    }
}
