using SlimPool.Queues;

namespace SlimPool;

/// <summary>An accepted item that an abandoning <see cref="SlimThreadPool.ShutdownAsync"/> handed back unrun.</summary>
/// <remarks>
/// A snapshot: <see cref="Callback"/> and <see cref="State"/> are read when the item is handed back and never change,
/// whatever the pool does with its own carrier objects afterwards. Copies of the struct share one item, which
/// <see cref="Run"/> runs at most once.
/// </remarks>
public readonly struct AbandonedWorkItem
{
    private readonly Snapshot? _snapshot;

    internal AbandonedWorkItem(in QueuedWorkItem item) => _snapshot = new Snapshot(item);

    /// <summary>
    /// The callback as it was queued: an <see cref="Action"/>, an <see cref="Action{T}"/> of <see cref="object"/>,
    /// a <see cref="SendOrPostCallback"/>, an <see cref="Action{T}"/> queued with its state, an
    /// <see cref="IThreadPoolWorkItem"/> or an <see cref="IWorkItem"/> (internal callbacks for tasks and continuations
    /// look like the delegate types).
    /// </summary>
    public object Callback => _snapshot?.Callback!;

    /// <summary>The state queued with <see cref="Callback"/>, or <see langword="null"/>.</summary>
    public object? State => _snapshot?.State;

    /// <summary>
    /// Runs the item on the calling thread, in the <see cref="ExecutionContext"/> it was queued with if the pool
    /// flowed one. An item whose cancellation token is cancelled is skipped (the pool's
    /// <see cref="SlimThreadPool.CancelledWorkItemCount"/> does not count that skip: the item is no longer the pool's).
    /// Exceptions propagate to the caller.
    /// </summary>
    /// <exception cref="InvalidOperationException">The item has already been run (through this copy or another), or
    /// this is the <see langword="default"/> value.</exception>
    public void Run()
    {
        Snapshot snapshot = _snapshot ?? throw new InvalidOperationException("This AbandonedWorkItem is the default value: it holds no item.");
        if (Interlocked.Exchange(ref snapshot.Ran, 1) != 0)
        {
            throw new InvalidOperationException("This abandoned item has already been run; an abandoned item runs at most once.");
        }

        QueuedWorkItem item = snapshot.Item;
        if (item.Context is { } context)
        {
            ExecutionContext.Run(context, static s => ((QueuedWorkItem)s!).InvokeHandedBack(), item);
            return;
        }

        item.InvokeHandedBack();
    }

    // The item and what it showed when handed back. The item's carrier (a value-type state's) is the snapshot's alone
    // until Run: it goes back to a thread's spare only once it has run.
    private sealed class Snapshot(in QueuedWorkItem item)
    {
        public readonly QueuedWorkItem Item = item;
        public readonly object Callback = item.UserCallback;
        public readonly object? State = item.UserState;
        public int Ran;
    }
}
