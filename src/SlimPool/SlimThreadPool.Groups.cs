using SlimPool.Groups;
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
            lock (_groupsLock)
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
