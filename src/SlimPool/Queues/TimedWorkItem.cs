using System.Diagnostics;

namespace SlimPool.Queues;

/// <summary>
/// An item stamped when queued, so the pool can record how long it waited. Allocated only while a listener
/// has enabled the queue-wait histogram (see <see cref="SlimThreadPool.MeterName"/>).
/// </summary>
internal sealed class TimedWorkItem(object callback, object? state, Action<TimeSpan> record) : IWrappedWorkItem
{
    private readonly long _queuedAt = Stopwatch.GetTimestamp();

    public object Callback => callback is IWrappedWorkItem inner ? inner.Callback : callback;

    public object? State => callback is IWrappedWorkItem inner ? inner.State : state;

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
