using System.Collections.Concurrent;
using System.Diagnostics.Tracing;
using System.Globalization;

namespace SlimPool.Bench.Reporting;

/// <summary>
/// <c>--monitor</c>'s view of the SlimPool event source for one pool: the starvation guard's firings and the slow items
/// the detector names (<see cref="SlimThreadPoolOptions.SlowItemThreshold"/>), taken once a second.
/// </summary>
internal sealed class PoolEvents(string pool) : EventListener
{
    private readonly ConcurrentQueue<string> _slowItems = new();
    private int _guardFirings;

    /// <summary>The guard's firings since the last call.</summary>
    public int TakeGuardFirings() => Interlocked.Exchange(ref _guardFirings, 0);

    /// <summary>The slow items since the last call, as "item (ms on worker N)", or "none".</summary>
    public string TakeSlowItems()
    {
        var items = new List<string>();
        while (_slowItems.TryDequeue(out string? item))
        {
            items.Add(item);
        }

        return items.Count == 0 ? "none" : string.Join("; ", items);
    }

    protected override void OnEventSourceCreated(EventSource eventSource)
    {
        if (eventSource.Name == "SlimPool")
        {
            EnableEvents(eventSource, EventLevel.Informational);
        }
    }

    protected override void OnEventWritten(EventWrittenEventArgs eventData)
    {
        if (eventData.Payload is not { Count: > 0 } payload || !Equals(payload[0], pool))
        {
            return;
        }

        if (eventData.EventName == "StarvationGuardFired")
        {
            Interlocked.Increment(ref _guardFirings);
        }
        else if (eventData.EventName == "SlowWorkItem" && payload.Count == 5)
        {
            string group = payload[1] as string is { Length: > 0 } name ? $" in group {name}" : "";
            _slowItems.Enqueue(string.Create(CultureInfo.InvariantCulture, $"{payload[3]}{group} (at least {payload[4]:0} ms on worker {payload[2]})"));
        }
    }
}
