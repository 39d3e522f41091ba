using SlimPool.Queues;
using SlimPool.Scheduling;

namespace SlimPool.Workers;

/// <summary>
/// What other threads read about one worker slot: how many items its workers have finished (the starvation
/// guard's measure of progress, and the metrics), whether the worker is busy (<c>WaitForIdleAsync</c>), how often
/// it went idle (the guard's test that every worker stayed busy through a period), and its thread's kernel id (the
/// guard reads that thread's CPU clock).
/// </summary>
/// <remarks>
/// Written only by the worker that occupies the slot (and the thread id, reset to 0 by <see cref="WorkerSet"/> before a
/// new occupant starts); a spare that retires leaves it to the next spare in the same slot, which starts after the
/// slot was freed under <see cref="WorkerSet"/>'s lock. The object never moves when the
/// set's tables grow, so a worker's writes are never lost to a copy. Each field sits on its own cache line. The busy
/// flag is the low bit of a count of the flag's changes (odd: busy), so the times the worker went idle are that count
/// halved, with no field of their own. The thread id is written by each new occupant after its start hook, before its
/// first <see cref="SetBusy"/> (whose exchange publishes it), so a reader that reads <see cref="BusyChanges"/> and then
/// <see cref="OsThreadId"/> gets the id of the thread whose changes it saw (or a later occupant's).
/// </remarks>
internal sealed class WorkerState
{
    private PaddedLong _completed;
    private PaddedLong _busyChanges; // raised and lowered in turn, from 0 (idle); odd while busy
    private int _osThreadId;         // written once per occupant, before its first SetBusy; 0: not yet (starting)
    // What the slot's worker runs, for the slow-item watch only (written while it is on, and around an item the shutdown
    // runs on the worker, which puts back what was there; see SetRunning, EnterNested).
    private object? _runningCallback;
    private object? _runningState;
    private SlimThreadPoolGroup? _runningGroup;
    private int _nestings; // items run inside the running one, entered and left (slow-item watch); the worker's alone
    private ReportedItem? _reported; // the item the watch reported last, by the counts it ran at (see OnReported)

    /// <summary>
    /// The blocking scopes of the slot's worker, set by each occupant before its first item and read only on its own
    /// thread (an item run inside another ends the scopes it left open: <see cref="WorkerBlockingState.EndOfNestedItem"/>).
    /// </summary>
    public WorkerBlockingState? Blocking { get; set; }

    /// <summary>
    /// User items finished in this slot (those that threw and those skipped as cancelled included; see
    /// <see cref="ItemAccounting"/>).
    /// </summary>
    public long Completed => Volatile.Read(ref _completed.Value);

    /// <summary>1 from just before the worker looks for an item until it finds the queue empty; else 0.</summary>
    public int Busy => (int)(Volatile.Read(ref _busyChanges.Value) & 1);

    /// <summary>How many times the slot's workers found nothing to do and lowered the busy flag.</summary>
    public long Idled => Volatile.Read(ref _busyChanges.Value) >> 1;

    /// <summary>How many times the busy flag changed (odd: busy); unchanged between two reads means no change between.</summary>
    public long BusyChanges => Volatile.Read(ref _busyChanges.Value);

    /// <summary>
    /// The kernel id of the slot's thread (<see cref="Diagnostics.ThreadCpuClock"/>); 0 until the thread has published it
    /// after its start hook (it is starting), and always where the pool reads no clocks.
    /// </summary>
    public int OsThreadId
    {
        get => Volatile.Read(ref _osThreadId);
        set => Volatile.Write(ref _osThreadId, value); // the slot's worker, before its first SetBusy; WorkerSet before it starts
    }

    /// <summary>The callback of the item the slot's worker runs or ran last, as stored in the queue (slow-item watch).</summary>
    public object? RunningCallback => Volatile.Read(ref _runningCallback);

    /// <summary>The state beside <see cref="RunningCallback"/>.</summary>
    public object? RunningState => Volatile.Read(ref _runningState);

    /// <summary>
    /// How many times the slot's worker entered or left an item run inside the running one: the slow-item watch times
    /// each such item on its own, from the change.
    /// </summary>
    public int Nestings => Volatile.Read(ref _nestings);

    /// <summary>The group whose turn the slot's worker runs, or null.</summary>
    public SlimThreadPoolGroup? RunningGroup => Volatile.Read(ref _runningGroup);

    /// <summary>
    /// The slot's worker only, while the slow-item watch is on: names the item it is about to run. The watch reads
    /// these a whole threshold (a millisecond at least) after it first saw the counts that this item's run keeps
    /// unchanged, long after the stores became visible; it then reads the counts again, and since these are release
    /// stores that follow the previous item's <see cref="OnItemCompleted"/>, unchanged counts mean it did not read the
    /// next item's names (see <see cref="Diagnostics.SlowItemWatch"/>).
    /// </summary>
    public void SetRunning(object callback, object? state)
    {
        if (callback is IReusedWorkItem reused)
        {
            // It clears itself before the user's callback runs (and may carry the next item by the time the watch
            // looks): keep the user's delegate, which names the item; its state is not needed for that.
            callback = reused.Callback;
            state = null;
        }

        Volatile.Write(ref _runningCallback, callback);
        Volatile.Write(ref _runningState, state);
    }

    /// <summary>
    /// The slot's worker only, while the slow-item watch is on: the item it ran has finished (after
    /// <see cref="OnItemCompleted"/>, if it counted). Until it names the next, it is looking for work, which the watch
    /// does not take for a slow item however long the look takes (a steal's grace, the worker preempted).
    /// </summary>
    public void ClearRunning()
    {
        Volatile.Write(ref _runningCallback, null);
        Volatile.Write(ref _runningState, null);
    }

    /// <summary>The slot's worker only, while the slow-item watch is on: the group whose turn it runs (null after).</summary>
    public void SetRunningGroup(SlimThreadPoolGroup? group) => Volatile.Write(ref _runningGroup, group);

    /// <summary>
    /// The slot's worker only: names an item run inside the running one (inline by a full bounded <c>Queue</c>, outside
    /// any group, or by the pool's shutdown on this worker) and returns the outer item's names, for
    /// <see cref="RestoreRunning"/>, which puts them back (null ones too, where the watch is off).
    /// </summary>
    public (object? Callback, object? State, SlimThreadPoolGroup? Group, bool Reported) EnterNested(object callback, object? state)
    {
        var outer = (_runningCallback, _runningState, _runningGroup, WasReported(_busyChanges.Value, _completed.Value, _nestings));
        Volatile.Write(ref _nestings, _nestings + 1); // first: a watch that reads the names then this count again sees the change
        SetRunning(callback, state);
        SetRunningGroup(null);
        return outer;
    }

    /// <summary>
    /// The slot's worker only: names the outer item again once the nested one returned. The watch times it afresh from
    /// here (the counts changed); one it had reported stays reported, so it is not reported again.
    /// </summary>
    public void RestoreRunning((object? Callback, object? State, SlimThreadPoolGroup? Group, bool Reported) outer)
    {
        Volatile.Write(ref _nestings, _nestings + 1);
        Volatile.Write(ref _runningCallback, outer.Callback);
        Volatile.Write(ref _runningState, outer.State);
        SetRunningGroup(outer.Group);
        if (outer.Reported)
        {
            OnReported(_busyChanges.Value, _completed.Value, _nestings);
        }
    }

    /// <summary>
    /// The slow-item watch reported the item that runs while the slot's counts read (<paramref name="busyChanges"/>,
    /// <paramref name="completed"/>, <paramref name="nestings"/>); the worker, when an item it ran inside that one
    /// returns, marks it so again at its new counts. Counts only grow, so the mark names no other item.
    /// </summary>
    public void OnReported(long busyChanges, long completed, int nestings) =>
        Volatile.Write(ref _reported, new ReportedItem(busyChanges, completed, nestings));

    /// <summary>Whether the item that runs while the slot's counts read so was reported (<see cref="OnReported"/>).</summary>
    public bool WasReported(long busyChanges, long completed, int nestings) =>
        Volatile.Read(ref _reported) is { } reported && reported == new ReportedItem(busyChanges, completed, nestings);

    /// <summary>The slot's worker only: a user item finished (run by the worker loop, or inside a group's turn).</summary>
    public void OnItemCompleted() => Volatile.Write(ref _completed.Value, _completed.Value + 1);

    /// <summary>The slot's worker only: raises or lowers the busy flag with a full fence (the exchange), even when it is already so.</summary>
    public void SetBusy(bool busy)
    {
        long changes = _busyChanges.Value; // only this worker writes it
        Interlocked.Exchange(ref _busyChanges.Value, (changes & 1) == (busy ? 1 : 0) ? changes : changes + 1);
    }

    /// <summary>The slot's worker only, on exit: no fence needed, nobody pairs with it.</summary>
    public void ClearBusy()
    {
        long changes = _busyChanges.Value;
        if ((changes & 1) != 0)
        {
            Volatile.Write(ref _busyChanges.Value, changes + 1);
        }
    }
}
