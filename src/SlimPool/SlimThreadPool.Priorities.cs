using SlimPool.Scheduling;

namespace SlimPool;

/// <summary>Priorities: items queued <see cref="WorkItemPriority.High"/> or <see cref="WorkItemPriority.Low"/> (see <see cref="PriorityLanes"/>).</summary>
public sealed partial class SlimThreadPool
{
    /// <summary>The lanes for High and Low items, or null while none was ever queued.</summary>
    internal PriorityLanes? Lanes => _publisher.Lanes;

    /// <summary>Queues <paramref name="callback"/> with a priority (see <see cref="WorkItemPriority"/>).</summary>
    /// <param name="callback">The work to run.</param>
    /// <param name="priority">How urgent it is; <see cref="WorkItemPriority.Normal"/> is the same as <see cref="ThreadPoolBase.Queue(Action)"/>.</param>
    /// <exception cref="ArgumentNullException"><paramref name="callback"/> is <see langword="null"/>.</exception>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="priority"/> is not a defined <see cref="WorkItemPriority"/>.</exception>
    /// <exception cref="ObjectDisposedException">The pool has been disposed.</exception>
    public void Queue(Action callback, WorkItemPriority priority)
    {
        ArgumentNullException.ThrowIfNull(callback);
        QueueCore(callback, null, CancellationToken.None, priority: Checked(priority));
    }

    /// <summary>Queues <paramref name="callback"/> with <paramref name="state"/> and a priority (see <see cref="WorkItemPriority"/>).</summary>
    /// <param name="callback">The work to run.</param>
    /// <param name="state">The argument passed to <paramref name="callback"/>.</param>
    /// <param name="priority">How urgent it is; <see cref="WorkItemPriority.Normal"/> is the same as <see cref="ThreadPoolBase.Queue(Action{object}, object)"/>.</param>
    /// <exception cref="ArgumentNullException"><paramref name="callback"/> is <see langword="null"/>.</exception>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="priority"/> is not a defined <see cref="WorkItemPriority"/>.</exception>
    /// <exception cref="ObjectDisposedException">The pool has been disposed.</exception>
    public void Queue(Action<object?> callback, object? state, WorkItemPriority priority)
    {
        ArgumentNullException.ThrowIfNull(callback);
        QueueCore(callback, state, CancellationToken.None, priority: Checked(priority));
    }

    /// <summary>Queues a reusable work item with a priority (see <see cref="WorkItemPriority"/>).</summary>
    /// <param name="workItem">The work to run.</param>
    /// <param name="priority">How urgent it is; <see cref="WorkItemPriority.Normal"/> is the same as <see cref="ThreadPoolBase.Queue(IWorkItem)"/>.</param>
    /// <exception cref="ArgumentNullException"><paramref name="workItem"/> is <see langword="null"/>.</exception>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="priority"/> is not a defined <see cref="WorkItemPriority"/>.</exception>
    /// <exception cref="ObjectDisposedException">The pool has been disposed.</exception>
    public void Queue(IWorkItem workItem, WorkItemPriority priority)
    {
        ArgumentNullException.ThrowIfNull(workItem);
        QueueCore(workItem, null, CancellationToken.None, priority: Checked(priority));
    }

    /// <summary>Like <see cref="Queue(Action, WorkItemPriority)"/>, but returns <see langword="false"/> instead of throwing when the pool does not accept the item.</summary>
    /// <param name="callback">The work to run.</param>
    /// <param name="priority">How urgent it is.</param>
    /// <returns><see langword="true"/> if the item was accepted and will run exactly once.</returns>
    /// <exception cref="ArgumentNullException"><paramref name="callback"/> is <see langword="null"/>.</exception>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="priority"/> is not a defined <see cref="WorkItemPriority"/>.</exception>
    public bool TryQueue(Action callback, WorkItemPriority priority)
    {
        ArgumentNullException.ThrowIfNull(callback);
        return TryQueueCore(callback, null, CancellationToken.None, priority: Checked(priority));
    }

    /// <summary>Like <see cref="Queue(Action{object}, object, WorkItemPriority)"/>, but returns <see langword="false"/> instead of throwing when the pool does not accept the item.</summary>
    /// <param name="callback">The work to run.</param>
    /// <param name="state">The argument passed to <paramref name="callback"/>.</param>
    /// <param name="priority">How urgent it is.</param>
    /// <returns><see langword="true"/> if the item was accepted and will run exactly once.</returns>
    /// <exception cref="ArgumentNullException"><paramref name="callback"/> is <see langword="null"/>.</exception>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="priority"/> is not a defined <see cref="WorkItemPriority"/>.</exception>
    public bool TryQueue(Action<object?> callback, object? state, WorkItemPriority priority)
    {
        ArgumentNullException.ThrowIfNull(callback);
        return TryQueueCore(callback, state, CancellationToken.None, priority: Checked(priority));
    }

    /// <summary>Like <see cref="Queue(IWorkItem, WorkItemPriority)"/>, but returns <see langword="false"/> instead of throwing when the pool does not accept the item.</summary>
    /// <param name="workItem">The work to run.</param>
    /// <param name="priority">How urgent it is.</param>
    /// <returns><see langword="true"/> if the item was accepted and will run exactly once.</returns>
    /// <exception cref="ArgumentNullException"><paramref name="workItem"/> is <see langword="null"/>.</exception>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="priority"/> is not a defined <see cref="WorkItemPriority"/>.</exception>
    public bool TryQueue(IWorkItem workItem, WorkItemPriority priority)
    {
        ArgumentNullException.ThrowIfNull(workItem);
        return TryQueueCore(workItem, null, CancellationToken.None, priority: Checked(priority));
    }

    private static WorkItemPriority Checked(WorkItemPriority priority) =>
        priority is WorkItemPriority.Low or WorkItemPriority.Normal or WorkItemPriority.High
            ? priority
            : throw new ArgumentOutOfRangeException(nameof(priority), priority, $"{nameof(priority)} must be Low, Normal or High.");
}
