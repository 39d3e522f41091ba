using System.Diagnostics;
using SlimPool.Lifecycle;
using SlimPool.Scheduling;
using SlimPool.Workers;

namespace SlimPool.Groups;

/// <summary>The group's counts of items accepted, run and not run, its close, and the drained and idle signals they
/// decide.</summary>
internal sealed partial class GroupTurns
{
    /// <summary>
    /// The number of items accepted and not yet finished or handed back; a running turn adds the items it ran once a
    /// quantum, so this may count up to a quantum of them as pending until then.
    /// </summary>
    public long PendingCount
    {
        get
        {
            // The finished counts first: every count only grows, so the difference is never negative.
            long finished = Volatile.Read(ref _ran) + Volatile.Read(ref _notRun);
            return (Volatile.Read(ref _accepted) & ~DrainedMark) - finished;
        }
    }

    /// <summary>
    /// How many of the group's items may be running now, for a cancelled drain's early result: each turn held runs at most
    /// one item at a time, and none runs that is not pending. <see cref="PendingCount"/> alone also counts the items a
    /// running turn has finished and not yet added to the count (up to a quantum of them), and those queued. A held
    /// turn between two items, or queued on the pool after the abandon's sweep, counts too, though it runs nothing.
    /// </summary>
    public int RunningCount => (int)Math.Min(TurnsIn(Volatile.Read(ref _turns)), PendingCount);

    /// <summary>The number of items run (those that threw and those skipped as cancelled included).</summary>
    public long CompletedCount => Volatile.Read(ref _ran);

    /// <summary>Completes when the group is closed and every accepted item has run or been handed back; only after <see cref="Close"/>.</summary>
    /// <remarks>A caller that finds the group closed by another thread's <see cref="Close"/> may come before that call
    /// installs the signal (right after its exchange); it waits for those few steps.</remarks>
    public Task Drained
    {
        get
        {
            TaskCompletionSource? drained = Volatile.Read(ref _drained);
            if (drained is null)
            {
                Debug.Assert(IsClosed, "the drained signal is read only after Close");
                var spinner = default(UninterruptedSpin); // a step of Begin, which a worker's item may call
                while ((drained = Volatile.Read(ref _drained)) is null)
                {
                    spinner.SpinOnce();
                }
            }

            return drained.Task;
        }
    }

    /// <summary>Stops accepting items; true for the call that closed it.</summary>
    public bool Close()
    {
        if (Interlocked.Exchange(ref _closed, 1) != 0)
        {
            return false;
        }

        // After the exchange (a full fence): pairs with the increment-then-look of TryAccept and CheckDrained. A group
        // with nothing pending is marked drained and gets the shared completed signal; otherwise a signal of its own,
        // installed before the second look, so that either this look or the last item's CheckDrained marks and completes
        // it (or installs the shared one first, which the compare-and-swap then keeps).
        if (TryMarkIfDrained())
        {
            SignalDrained();
            return true;
        }

        Interlocked.CompareExchange(ref _drained, new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously), null);
        if (TryMarkIfDrained())
        {
            SignalDrained();
        }

        return true;
    }

    // Adds a turn's items to _ran (a full fence), then looks at _closed; see CheckDrained.
    private void AddRan(long count)
    {
        if (count != 0)
        {
            CheckDrained(Interlocked.Add(ref _ran, count), Volatile.Read(ref _notRun));
        }
    }

    // The increment first, then the read of the other count: CheckDrained's pairing needs each side to change its own
    // count (a full fence) before it reads the other's. Read first, a sweep's last item and a turn's last ones could
    // each miss the other's change, and nothing would signal (GroupDrained.pml, BROKEN_ORDER).
    private void OnItemNotRun()
    {
        long notRun = Interlocked.Increment(ref _notRun);
        CheckDrained(Volatile.Read(ref _ran), notRun);
    }

    // Called after a count's change and a full fence (the change itself, or a turn's decrement after a serial turn's
    // plain store) and before the look at _closed, as in TryAccept: either Close sees this
    // item finished, or this sees the close. Nothing is pending when the two finished counts, both read before the
    // accepted count, add up to it: they are at most the counts at the later of their reads, whose sum is at most the
    // items accepted then, which is at most the accepted count read after; equality makes all three equal. The idle
    // waiters pair the same way (IdleWaiters): this reads whether anybody waits after the increment's fence.
    private void CheckDrained(long ran, long notRun)
    {
        bool closed = Volatile.Read(ref _closed) != 0;
        IdleWaiters? waiters = Volatile.Read(ref _idleWaiters);
        long registered = waiters is not null && waiters.Any ? waiters.Registered : 0; // before the accepted count's read
        long accepted = Volatile.Read(ref _accepted);
        if ((closed || registered != 0) && ran + notRun == (accepted & ~DrainedMark))
        {
            if (closed && TryMarkDrained(accepted))
            {
                SignalDrained();
            }

            if (registered != 0)
            {
                waiters!.CompleteUpTo(registered); // only those registered before the verdict (IdleWaiters)
            }
        }
    }

    /// <summary>
    /// A task that completes once the group holds nothing accepted and unfinished: every item it accepted ran or came back
    /// (an async flow between two steps, whose next step is not yet queued, counts as nothing).
    /// </summary>
    public Task WaitForIdleAsync(CancellationToken cancellationToken)
    {
        IdleWaiters waiters = Volatile.Read(ref _idleWaiters) ?? Interlocked.CompareExchange(ref _idleWaiters, new IdleWaiters(), null) ?? _idleWaiters!;
        return waiters.WaitAsync(() => PendingCount == 0, cancellationToken);
    }

    // Close's look: the finished counts first, then the accepted count (see PendingCount); marks the group drained if
    // nothing is pending.
    private bool TryMarkIfDrained()
    {
        long finished = Volatile.Read(ref _ran) + Volatile.Read(ref _notRun);
        long accepted = Volatile.Read(ref _accepted);
        return finished == (accepted & ~DrainedMark) && TryMarkDrained(accepted);
    }

    // Marks the closed group drained at `accepted`, the count that made it so: false if an item was counted since (a
    // continuation: it runs, and its finish looks again). Marked already, it stays so.
    private bool TryMarkDrained(long accepted) =>
        (accepted & DrainedMark) != 0 || Interlocked.CompareExchange(ref _accepted, accepted | DrainedMark, accepted) == accepted;

    // The group has drained: completes its signal, or installs the shared completed one where Close installed none.
    private void SignalDrained()
    {
        TaskCompletionSource drained = Volatile.Read(ref _drained) ?? Interlocked.CompareExchange(ref _drained, s_drained, null) ?? s_drained;
        if (!drained.Task.IsCompleted)
        {
            // On the turn's thread, after an item that may have left an interrupt pending: see ThreadInterrupts.HoldOffPending.
            using ThreadInterrupts.PendingScope heldOff = ThreadInterrupts.HoldOffPending();
            drained.TrySetResult();
        }
    }
}
