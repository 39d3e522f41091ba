using System.Diagnostics;
using System.Reflection;
using SlimPool.Groups;
using SlimPool.Queues;
using SlimPool.Scheduling;
using SlimPool.Workers;

namespace SlimPool.Diagnostics;

/// <summary>
/// The slow-item detector (<see cref="SlimThreadPoolOptions.SlowItemThreshold"/>): a thread that looks at every worker
/// slot each eighth of the threshold and reports, once, an item that is still running a threshold after the watch first saw
/// it, while it runs, with what names it.
/// </summary>
/// <remarks>
/// <para><b>Same item.</b> A worker slot's finished count (<see cref="WorkerState.Completed"/>) and its busy count
/// (<see cref="WorkerState.BusyChanges"/>) change when an item finishes and when the worker goes idle or wakes. A slot
/// seen busy with both counts unchanged since an earlier look has been running one item since that look, so the item
/// is reported when now minus that look's time reaches the threshold: what the report says ran is a lower bound. The
/// watch looks every eighth of the threshold (at most every millisecond) to see new items, and at the moment an item
/// seen earlier reaches the threshold, so an item is caught once it has run 1.125 thresholds (the first look that sees
/// it is at most a period after it started) plus the watch thread's wake-up delays (it sleeps in whole milliseconds). A worker running a group's turn finishes a count per group item, so the watch sees each of its items
/// (<see cref="GroupTurns"/> names them); a worker inside a blocking scope is holding its slot all the same and is
/// reported like any other. An item run inside another (inline by a full bounded <c>Queue</c>, a turn run by a
/// <c>Dispose</c> on a worker) changes a third count when it starts and when it returns
/// (<see cref="WorkerState.Nestings"/>), so it is timed on its own, and the outer item again from its return.</para>
/// <para><b>Looking is not running.</b> A worker is busy from its look at the queue on, before it has an item; a look that a
/// steal's grace or a preemption stretches past the threshold ran nothing. A worker clears its item's names once the item
/// finished (<see cref="WorkerState.ClearRunning"/>), and a busy slot with no name is skipped and its timing started afresh,
/// so the item it finds next is timed from when the watch first sees it running.</para>
/// <para><b>Naming.</b> Workers store the callback and state they are about to run while the watch is on
/// (<see cref="WorkerState.SetRunning"/>): four stores an item with the clearing, and nothing at all while it is off. The watch reads them
/// only for an item it reports, then reads both counts again: changed, the item finished meanwhile and nothing is
/// reported for it.</para>
/// <para><b>Sleeping.</b> With no worker busy the watch parks until one wakes: it announces itself parked with a full
/// fence (the exchange), then looks at every busy flag once more before it parks; a worker raises its busy flag with a
/// full fence and then reads the announcement (<see cref="OnWorkerBusy"/>). Of the two, at least one sees the other,
/// so a worker that wakes is never left unwatched. <c>SlowItemWatch.pml</c> beside this file models both sides;
/// <c>eng/check-models.sh</c> checks with Spin that the watch is never left parked while a worker runs an item that
/// never returns, and that dropping the re-check or the worker's read of the announcement breaks that.</para>
/// <para><b>Ownership.</b> The slot table and every field but the count of reports and the parker are the watch
/// thread's alone.</para>
/// </remarks>
internal sealed class SlowItemWatch
{
    // SlimPool's packages: their delegates (an adapter's callback) carry the user's work as their state.
    private static readonly HashSet<string> s_packages =
        ["SlimPool", "SlimPool.Akka", "SlimPool.ProtoActor", "SlimPool.Reactive", "SlimPool.Extensions.DependencyInjection"];

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
        _periodMs = Math.Max(1, SlimThreadPoolOptions.ToWholeMilliseconds(threshold) / 8);
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
            int wait = Look(Stopwatch.GetTimestamp());
            if (wait < 0)
            {
                _parker.Announce(); // a full fence, then re-check: see the remarks
                if (!AnyBusy() && !_stopping)
                {
                    _parker.Park();
                }

                _parker.Withdraw();
                continue;
            }

            _parker.Park(wait); // a stray permit only brings the next look forward
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

    // One look at every slot. Returns how long to wait before the next, in milliseconds: a period, to see new items
    // early, or less, to be there when an item seen earlier reaches the threshold; -1 when no worker is busy.
    private int Look(long now)
    {
        int count = _workers.SlotCount;
        if (_slots.Length < count)
        {
            Array.Resize(ref _slots, count);
        }

        bool anyBusy = false;
        long nextDeadline = long.MaxValue;
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
            if (state.RunningCallback is null)
            {
                // Busy looking for work, between two items (WorkerState.ClearRunning): nothing runs that could be slow.
                // The slot starts afresh, so the item that comes next is timed from when it is first seen running.
                slot = default;
                continue;
            }

            long completed = state.Completed;
            int nestings = state.Nestings;
            if (!ReferenceEquals(slot.State, state) || slot.BusyChanges != changes || slot.Completed != completed || slot.Nestings != nestings)
            {
                // Another item, or the same one again once an item it ran inside it returned: timed from now, unless
                // it was reported before that item (the worker carried the mark over: WorkerState.RestoreRunning).
                slot = new Slot(state, changes, completed, nestings, now) { Reported = state.WasReported(changes, completed, nestings) };
                nextDeadline = Math.Min(nextDeadline, now + _thresholdTicks);
                continue;
            }

            if (slot.Reported)
            {
                continue;
            }

            if (now - slot.FirstSeen < _thresholdTicks)
            {
                nextDeadline = Math.Min(nextDeadline, slot.FirstSeen + _thresholdTicks);
                continue;
            }

            // The names, and what they name (an adapter's item is read while it runs), before the counts are read again:
            // unchanged, the item was still running through both reads.
            object? callback = state.RunningCallback;
            object? itemState = state.RunningState;
            SlimThreadPoolGroup? group = state.RunningGroup;
            string? item = SlimPoolEventSource.Log.IsEnabled() ? Describe(callback, itemState) : null;
            if (state.BusyChanges != changes || state.Completed != completed || state.Nestings != nestings)
            {
                continue; // it finished, or entered or left a nested item, meanwhile: the names may be another item's
            }

            slot.Reported = true;
            state.OnReported(changes, completed, nestings);
            Interlocked.Increment(ref _reported);
            if (item is not null)
            {
                double runningMs = (now - slot.FirstSeen) * 1000.0 / Stopwatch.Frequency;
                SlimPoolEventSource.Log.SlowWorkItem(_poolName, group?.Name ?? "", index, item, runningMs);
            }
        }

        if (!anyBusy)
        {
            return -1;
        }

        long untilDeadline = nextDeadline == long.MaxValue ? long.MaxValue : (nextDeadline - now) * 1000 / Stopwatch.Frequency;
        return (int)Math.Clamp(untilDeadline + 1, 1, _periodMs); // + 1: a park rounds down to whole milliseconds
    }

    /// <summary>
    /// What names an item cheaply, without a stack: the user's delegate's declaring type and method, or the work item's
    /// type. A delegate of the pool's, an adapter's or the framework's own that carries the user's object as its state (a
    /// task, an <see cref="IThreadPoolWorkItem"/>, an await's continuation posted to the pool's context, an Rx action) is
    /// named by that object: its type, or the method of the delegate it is (an async method's continuation names its
    /// state machine). An adapter's item that knows what the user gave it says so (<see cref="INamedWorkItem"/>).
    /// </summary>
    internal static string Describe(object? callback, object? state)
    {
        if (callback is null)
        {
            return "(unknown)";
        }

        var stored = new QueuedWorkItem(callback, state, context: null);
        object? user = stored.UserCallback;
        object? userState = stored.UserState;
        for (int depth = 0; depth < 8 && user is not null; depth++)
        {
            if (user is INamedWorkItem named)
            {
                (user, userState) = named.NameParts; // an adapter's item: what the user gave it
                continue;
            }

            if (user is not Delegate d)
            {
                return user.GetType().ToString();
            }

            MethodInfo method = d.Method;
            if (!IsPlumbing(method.DeclaringType) || userState is null)
            {
                return $"{method.DeclaringType}.{method.Name}";
            }

            user = userState; // the plumbing's state is what the user queued
            userState = null;
        }

        return user?.GetType().ToString() ?? "(unknown)";
    }

    // The pool's, its adapters' and the framework's own delegates, which carry the user's work as their state.
    private static bool IsPlumbing(Type? type)
    {
        if (type is null || type.Assembly == typeof(object).Assembly)
        {
            return true;
        }

        string? assembly = type.Assembly.GetName().Name;
        return assembly is not null && (s_packages.Contains(assembly) || assembly.StartsWith("System.", StringComparison.Ordinal));
    }


    private record struct Slot(WorkerState? State, long BusyChanges, long Completed, int Nestings, long FirstSeen)
    {
        public bool Reported;
    }
}
