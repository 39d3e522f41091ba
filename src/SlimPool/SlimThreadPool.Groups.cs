using SlimPool.Groups;

namespace SlimPool;

/// <summary>Groups: sets of the pool's items with a concurrency limit, a turn quantum and a priority (see <see cref="SlimThreadPoolGroup"/>).</summary>
public sealed partial class SlimThreadPool
{
    private readonly Lock _groupsLock = new();
    private SlimThreadPoolGroup[] _groups = []; // copy on write under _groupsLock; read without it by the metrics
    private int _groupsCreated;

    /// <summary>
    /// Creates a group of this pool's items: an <see cref="IThreadPool"/> that runs at most
    /// <see cref="SlimGroupOptions.MaxConcurrency"/> of its items at a time on this pool's workers (1: a serial queue),
    /// with its own <see cref="SlimThreadPoolGroup.TaskScheduler"/> and <see cref="SlimThreadPoolGroup.SynchronizationContext"/>.
    /// </summary>
    /// <param name="options">The group's settings; <see langword="null"/> for the defaults (a serial queue). Copied, so
    /// later changes do not affect the group.</param>
    /// <returns>The group. It costs no thread; dispose it to drain and retire it (the pool's shutdown does too).</returns>
    /// <exception cref="ObjectDisposedException">The pool has been shut down.</exception>
    public SlimThreadPoolGroup CreateGroup(SlimGroupOptions? options = null)
    {
        options ??= new SlimGroupOptions();
        if (IsShutDown)
        {
            ThrowDisposed();
        }

        string name = options.Name ?? $"{_name} group {Interlocked.Increment(ref _groupsCreated)}";
        var group = new SlimThreadPoolGroup(this, _runner, options, name);
        lock (_groupsLock)
        {
            _groups = [.. _groups, group];
        }

        return group;
    }

    /// <summary>A group has drained after its shutdown: it leaves the pool's metrics.</summary>
    internal void OnGroupShutDown(SlimThreadPoolGroup group)
    {
        lock (_groupsLock)
        {
            _groups = [.. _groups.Where(g => g != group)];
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

    /// <summary>The groups not yet shut down, for the metrics.</summary>
    internal SlimThreadPoolGroup[] Groups => Volatile.Read(ref _groups);
}
