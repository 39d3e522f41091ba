using System.Diagnostics;

namespace SlimPool.Queues;

/// <summary>
/// An item stamped when queued, so the pool can record how long it waited. Allocated only while a listener
/// has enabled the queue-wait histogram (see <see cref="SlimThreadPool.MeterName"/>).
/// </summary>
internal sealed class TimedWorkItem(object callback, object? state, Action<TimeSpan> record) : IWrappedWorkItem
{
    private readonly long _queuedAt = Stopwatch.GetTimestamp();

    // As the user queued it: through an inner wrapper, and an IThreadPoolWorkItem as itself (QueuedWorkItem.UserCallback).
    public object Callback => new QueuedWorkItem(callback, state, context: null).UserCallback;

    public object? State => new QueuedWorkItem(callback, state, context: null).UserState;

    public void ExecuteHandedBack()
    {
        if (callback is IWrappedWorkItem inner)
        {
            inner.ExecuteHandedBack();
            return;
        }

        new QueuedWorkItem(callback, state, context: null).Invoke();
    }

    public void Execute()
    {
        record(Stopwatch.GetElapsedTime(_queuedAt));
        new QueuedWorkItem(callback, state, context: null).Invoke();
    }
}
