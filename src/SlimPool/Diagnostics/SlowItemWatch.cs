using System.Diagnostics;
using System.Reflection;
using SlimPool.Groups;
using SlimPool.Queues;
using SlimPool.Scheduling;
using SlimPool.Workers;

namespace SlimPool.Diagnostics;

/// <summary>
/// The slow-item detector (<see cref="SlimThreadPoolOptions.SlowItemThreshold"/>): a thread that looks at every worker
/// slot each quarter threshold and reports, once, an item that is still running a threshold after the watch first saw
/// it, while it runs, with what names it.
/// </summary>
/// <remarks>
/// <para><b>Same item.</b> A worker slot's finished count (<see cref="WorkerState.Completed"/>) and its busy count
/// (<see cref="WorkerState.BusyChanges"/>) change when an item finishes and when the worker goes idle or wakes. A slot
/// seen busy with both counts unchanged since an earlier look has been running one item since that look, so the item
/// is reported when now minus that look's time reaches the threshold: what the report says ran is a lower bound, and an
/// item running 1.25 thresholds is always caught (the first look that sees it is at most a quarter threshold after it
/// started). A worker running a group's turn finishes a count per group item, so the watch sees each of its items
/// (<see cref="GroupTurns"/> names them); a worker inside a blocking scope is holding its slot all the same and is
/// reported like any other.</para>
/// <para><b>Naming.</b> Workers store the callback and state they are about to run while the watch is on
/// (<see cref="WorkerState.SetRunning"/>): two stores an item, and nothing at all while it is off. The watch reads them
/// only for an item it reports, then reads both counts again: changed, the item finished meanwhile and nothing is
/// reported for it.</para>
/// <para><b>Sleeping.</b> With no worker busy the watch parks until one wakes: it announces itself parked with a full
/// fence (the exchange), then looks at every busy flag once more before it parks; a worker raises its busy flag with a
/// full fence and then reads the announcement (<see cref="OnWorkerBusy"/>). Of the two, at least one sees the other,
/// so a worker that wakes is never left unwatched.</para>
/// <para><b>Ownership.</b> The slot table and every field but the count of reports and the parker are the watch
/// thread's alone.</para>
/// </remarks>
internal sealed class SlowItemWatch
{
    private readonly WorkerSet _workers;
    private readonly string _poolName;
    private readonly long _thresholdTicks;
    private readonly int _periodMs;
    private readonly AnnouncedParker _parker = new(); // its announcement is read by each worker that wakes
    private readonly Thread _thread;
    private Slot[] _slots = [];
    private long _reported;
    private volatile bool _stopping;

    public SlowItemWatch(WorkerSet workers, TimeSpan threshold, string poolName)
    {
        _workers = workers;
        _poolName = poolName;
        _thresholdTicks = (long)(threshold.TotalSeconds * Stopwatch.Frequency);
        _periodMs = Math.Max(1, SlimThreadPoolOptions.ToWholeMilliseconds(threshold) / 4);
        _thread = new Thread(Run) { IsBackground = true, Name = $"{poolName} slow-item watch" };
        _thread.UnsafeStart();
    }

    /// <summary>Items reported as slow so far.</summary>
    public long ReportedCount => Interlocked.Read(ref _reported);

    /// <summary>A worker's side, after it raised its busy flag (a full fence): wakes the watch if it parked.</summary>
    public void OnWorkerBusy()
    {
        _parker.WakeIfParked();
    }

    public void Stop()
    {
        _stopping = true;
        _parker.Unpark();
    }

    public void Join() => _thread.Join();

    /// <summary>Whether the watch thread has returned (after <see cref="Stop"/>).</summary>
    public bool HasExited => !_thread.IsAlive;

    private void Run()
    {
        while (!_stopping)
        {
            if (!Look(Stopwatch.GetTimestamp()))
            {
                _parker.Announce(); // a full fence, then re-check: see the remarks
                if (!AnyBusy() && !_stopping)
                {
                    _parker.Park();
                }

                _parker.Withdraw();
                continue;
            }

            _parker.Park(_periodMs); // a stray permit only brings the next look forward
        }
    }

    private bool AnyBusy()
    {
        int slots = _workers.SlotCount;
        for (int index = 0; index < slots; index++)
        {
            if (_workers.Occupant(index) is { Busy: 1 })
            {
                return true;
            }
        }

        return false;
    }

    // One look at every slot; returns whether any worker was busy.
    private bool Look(long now)
    {
        int count = _workers.SlotCount;
        if (_slots.Length < count)
        {
            Array.Resize(ref _slots, count);
        }

        bool anyBusy = false;
        for (int index = 0; index < count; index++)
        {
            ref Slot slot = ref _slots[index];
            WorkerState? state = _workers.Occupant(index);
            long changes = state?.BusyChanges ?? 0;
            if (state is null || (changes & 1) == 0)
            {
                slot = default;
                continue;
            }

            anyBusy = true;
            long completed = state.Completed;
            if (!ReferenceEquals(slot.State, state) || slot.BusyChanges != changes || slot.Completed != completed)
            {
                slot = new Slot(state, changes, completed, now);
                continue;
            }

            if (slot.Reported || now - slot.FirstSeen < _thresholdTicks)
            {
                continue;
            }

            object? callback = state.RunningCallback;
            object? itemState = state.RunningState;
            SlimThreadPoolGroup? group = state.RunningGroup;
            if (state.BusyChanges != changes || state.Completed != completed)
            {
                continue; // it finished meanwhile: the names may be the next item's
            }

            slot.Reported = true;
            Interlocked.Increment(ref _reported);
            if (SlimPoolEventSource.Log.IsEnabled())
            {
                double runningMs = (now - slot.FirstSeen) * 1000.0 / Stopwatch.Frequency;
                SlimPoolEventSource.Log.SlowWorkItem(_poolName, group?.Name ?? "", index, Describe(callback, itemState), runningMs);
            }
        }

        return anyBusy;
    }

    /// <summary>
    /// What names an item cheaply, without a stack: the user's delegate's declaring type and method, or the work item's
    /// type. A delegate of the pool's or the runtime's own that carries the user's object as its state (a task, an
    /// <see cref="IThreadPoolWorkItem"/>, an await's continuation posted to the pool's context) is named by that object:
    /// its type, or the method of the delegate it is (an async method's continuation names its state machine).
    /// </summary>
    internal static string Describe(object? callback, object? state)
    {
        if (callback is null)
        {
            return "(unknown)";
        }

        var stored = new QueuedWorkItem(callback, state, context: null);
        object user = stored.UserCallback;
        object? userState = stored.UserState;
        while (user is Delegate d)
        {
            MethodInfo method = d.Method;
            if (!IsPlumbing(method.DeclaringType) || userState is null)
            {
                return $"{method.DeclaringType}.{method.Name}";
            }

            user = userState; // the plumbing's state is what the user queued
            userState = null;
        }

        return user.GetType().ToString();
    }

    private static bool IsPlumbing(Type? type) =>
        type is null || type.Assembly == typeof(SlowItemWatch).Assembly || type.Assembly == typeof(object).Assembly;

    private record struct Slot(WorkerState? State, long BusyChanges, long Completed, long FirstSeen)
    {
        public bool Reported;
    }
}
