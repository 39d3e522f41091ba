using System.Diagnostics;
using SlimPool.Groups;
using SlimPool.Queues;
using SlimPool.Workers;

namespace SlimPool;

/// <summary>Groups: sets of the pool's items with a concurrency limit, a turn quantum and a priority (see <see cref="SlimThreadPoolGroup"/>).</summary>
public sealed partial class SlimThreadPool
{
    // The groups not yet shut down: a doubly linked list through the groups themselves (PreviousInPool, NextInPool),
    // newest first, all under _groupsLock. Adding and removing a group is O(1) and allocates nothing; the metrics and
    // the abandon's hand-back take a snapshot under the lock and walk it outside.
    private static readonly SlimGroupOptions s_defaultGroupOptions = new(); // read only, never handed out

    private readonly Lock _groupsLock = new();
    private SlimThreadPoolGroup? _firstGroup; // under _groupsLock
    private int _groupCount;                  // under _groupsLock
    private int _groupsCreated;

    /// <summary>
    /// On one of this pool's workers, as a group's turn ends: takes the next item the worker's loop would take when that
    /// is another group's turn in the worker's own slot (an actor's message to another actor, a serial queue's item
    /// queued from another's), so the ending turn runs it next without going back through the loop. The loop's look
    /// is mirrored: a High item waiting comes first (the loop takes it from its lane before the queues), a look due
    /// to be fair and the slot's budget are counted as the loop counts them (<see cref="WorkerQueues.TryTakeSlotEntryOf{T}"/>),
    /// and the turn's capacity slot is given back as the loop gives back an item's. Null when the loop should look
    /// itself: the slow-item watch names each item the loop takes, and a pool that has begun to shut down takes
    /// the loop's stop path.
    /// </summary>
    internal GroupTurns? TryTakeNextTurn(PoolThreadLocals locals)
    {
        Debug.Assert(locals.Pool == this, "only this pool's workers take from their own slot");
        if (locals.OwnQueues is not { } own || _slowItems is not null || IsShutDown || _publisher.Lanes is { HasHigh: true }
            || !own.TryTakeSlotEntryOf(out GroupTurns? next))
        {
            return null;
        }

        _gate?.Release();
        return next;
    }

    /// <summary>
    /// Creates a group of this pool's items: an <see cref="IThreadPool"/> that runs at most
    /// <see cref="SlimGroupOptions.MaxConcurrency"/> of its items at a time on this pool's workers (1: a serial queue),
    /// with its own <see cref="SlimThreadPoolGroup.TaskScheduler"/> and <see cref="SlimThreadPoolGroup.SynchronizationContext"/>.
    /// </summary>
    /// <param name="options">The group's settings; <see langword="null"/> for the defaults (a serial queue). Copied, so
    /// later changes do not affect the group.</param>
    /// <returns>The group. It costs no thread and, idle, about 240 bytes (it holds a queue only while items wait in it);
    /// creating and retiring one take constant time. Dispose it to drain and retire it (the pool's shutdown does too).</returns>
    /// <exception cref="ObjectDisposedException">The pool has been shut down.</exception>
    public SlimThreadPoolGroup CreateGroup(SlimGroupOptions? options = null)
    {
        options ??= s_defaultGroupOptions;
        if (IsShutDown)
        {
            ThrowDisposed();
        }

        var group = new SlimThreadPoolGroup(this, options, Interlocked.Increment(ref _groupsCreated));
        lock (_groupsLock)
        {
            SlimThreadPoolGroup? first = _firstGroup;
            group.NextInPool = first;
            if (first is not null)
            {
                first.PreviousInPool = group;
            }

            _firstGroup = group;
            _groupCount++;
        }

        return group;
    }

    /// <summary>The runner that runs the pool's items, its groups' included.</summary>
    internal WorkItemRunner Runner => _runner;

    /// <summary>The number of groups not yet shut down.</summary>
    internal int GroupCount
    {
        get
        {
            lock (_groupsLock)
            {
                return _groupCount;
            }
        }
    }

    /// <summary>A snapshot of the groups not yet shut down, newest first, for the metrics and the abandon.</summary>
    internal SlimThreadPoolGroup[] Groups
    {
        get
        {
            using (ThreadInterrupts.Hold(_groupsLock)) // the shutdown's finish, after leftovers that may leave an interrupt
            {
                var groups = new SlimThreadPoolGroup[_groupCount];
                int i = 0;
                for (SlimThreadPoolGroup? group = _firstGroup; group is not null; group = group.NextInPool)
                {
                    groups[i++] = group;
                }

                return groups;
            }
        }
    }

    /// <summary>A group has drained after its shutdown: it leaves the pool's list (once; a second call changes nothing).</summary>
    internal void OnGroupShutDown(SlimThreadPoolGroup group)
    {
        lock (_groupsLock)
        {
            SlimThreadPoolGroup? previous = group.PreviousInPool;
            SlimThreadPoolGroup? next = group.NextInPool;
            if (previous is null && _firstGroup != group)
            {
                return; // not in the list
            }

            if (previous is null)
            {
                _firstGroup = next;
            }
            else
            {
                previous.NextInPool = next;
            }

            if (next is not null)
            {
                next.PreviousInPool = previous;
            }

            group.PreviousInPool = null;
            group.NextInPool = null;
            _groupCount--;
        }
    }

    /// <summary>The pool's abandon: every group's queued items come back, whether or not its turn is running.</summary>
    private void HandBackGroupItems(List<AbandonedWorkItem> abandoned)
    {
        foreach (SlimThreadPoolGroup group in Groups)
        {
            group.HandBackQueued(abandoned);
        }
    }
}
