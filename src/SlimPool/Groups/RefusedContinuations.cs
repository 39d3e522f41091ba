using System.Collections.Concurrent;
using SlimPool.Workers;

namespace SlimPool.Groups;

/// <summary>
/// A group's continuations that arrived once it no longer accepted them (its abandon or its pool's began, or it
/// drained): they run on the built-in pool, as the pool's own late continuations do, so none is dropped or thrown at,
/// but only once the group's items still running have finished, and one at a time in the order they came: a serial
/// group's flow resumed past its abandon must not run beside the item the abandon let finish, nor beside another flow.
/// </summary>
/// <remarks>
/// The items wait in a queue; <c>_scheduled</c> is 1 from the call that finds it 0 and starts a run until that run has
/// emptied the queue. A run starts once the group is idle (<see cref="SlimThreadPoolGroup.WaitForIdleAsync"/>: every
/// item it accepted ran or came back) and runs what is queued on one built-in thread. No lost item: an adder enqueues
/// (a full fence) then tries the flag; a run clears the flag (an exchange, a full fence) then looks at the queue, and
/// starts again if it holds an item and the flag is still its to take. An item's exception is unhandled on the built-in
/// pool, as a late <c>Post</c>'s is there.
/// </remarks>
internal sealed class RefusedContinuations(SlimThreadPoolGroup group) : IThreadPoolWorkItem
{
    private static readonly ContextCallback s_runUnderGroup = static state =>
    {
        var (context, callback, argument) = ((SynchronizationContext, Action<object?>, object?))state!;
        SynchronizationContext.SetSynchronizationContext(context);
        callback(argument);
    };

    private readonly ConcurrentQueue<(Action<object?> Callback, object? State)> _items = new();
    private int _scheduled;

    /// <summary>Runs <paramref name="callback"/> on the built-in pool once the group is idle, after those added before it.</summary>
    public void Add(Action<object?> callback, object? state)
    {
        _items.Enqueue((callback, state));
        if (Volatile.Read(ref _scheduled) == 0 && Interlocked.CompareExchange(ref _scheduled, 1, 0) == 0)
        {
            StartWhenIdle();
        }
    }

    private void StartWhenIdle() =>
        group.WaitForIdleAsync().ContinueWith(
            static (_, run) => ThreadPool.UnsafeQueueUserWorkItem((RefusedContinuations)run!, preferLocal: false),
            this,
            CancellationToken.None,
            TaskContinuationOptions.ExecuteSynchronously,
            TaskScheduler.Default);

    // Each item runs as a built-in pool's item of its own would, in a clean ExecutionContext (a continuation restores its
    // own), and under the group's SynchronizationContext, as the group's items do: the flow it resumes posts its next
    // step there, which the group refuses again, so the rest of the flow comes back here, one step at a time, rather than
    // going on to the built-in pool beside the others. ExecutionContext.Run puts back the thread's contexts after each,
    // so nothing one item sets (an AsyncLocal, another SynchronizationContext) reaches the next.
    void IThreadPoolWorkItem.Execute()
    {
        SynchronizationContext groupContext = group.SynchronizationContext;
        try
        {
            while (_items.TryDequeue(out (Action<object?> Callback, object? State) item))
            {
                ExecutionContext.Run(ThreadContexts.Clean, s_runUnderGroup, (groupContext, item.Callback, item.State));
            }
        }
        finally
        {
            Interlocked.Exchange(ref _scheduled, 0);
            if (!_items.IsEmpty && Interlocked.CompareExchange(ref _scheduled, 1, 0) == 0)
            {
                StartWhenIdle();
            }
        }
    }
}
