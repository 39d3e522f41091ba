namespace SlimPool;

/// <summary>What a <see cref="SlimThreadPool.ShutdownAsync"/> did: how it ended, and the items it did not run.</summary>
public sealed class ShutdownResult
{
    internal ShutdownResult(ShutdownMode mode, IReadOnlyList<AbandonedWorkItem> abandonedItems, int runningWorkItemCount)
    {
        Mode = mode;
        AbandonedItems = abandonedItems;
        RunningWorkItemCount = runningWorkItemCount;
    }

    /// <summary>
    /// How the shutdown ended: <see cref="ShutdownMode.Abandon"/> when an abandon was asked for (directly, or by
    /// cancelling a drain's token) before the queue was empty, otherwise <see cref="ShutdownMode.Drain"/>.
    /// </summary>
    public ShutdownMode Mode { get; }

    /// <summary>
    /// The accepted items that never started, in no particular order; empty after a drain. They belong to the
    /// caller now: run them (<see cref="AbandonedWorkItem.Run"/>), persist them, or drop them knowingly. Tasks
    /// the pool's <see cref="SlimThreadPool.TaskScheduler"/> had queued are among them; they complete only if run.
    /// </summary>
    public IReadOnlyList<AbandonedWorkItem> AbandonedItems { get; }

    /// <summary>The number of <see cref="AbandonedItems"/>.</summary>
    public int AbandonedCount => AbandonedItems.Count;

    /// <summary>
    /// How many items were still running when the result was made: 0 unless a cancelled token made the shutdown
    /// return before the workers had stopped. Those items finish on their workers, which then exit; the count includes
    /// the long-running tasks of the pool's schedulers accepted before the shutdown, each on a thread of its own, whose
    /// delegates may not have begun yet. A group's count is one item for each turn it holds, at most the items it has
    /// pending.
    /// </summary>
    public int RunningWorkItemCount { get; }
}
