using System.Collections.Concurrent;
using System.Diagnostics.Tracing;

namespace SlimPool.Tests.Infrastructure;

/// <summary>Records the <c>SlimPool</c> event source's events about one pool (the first payload field names it).</summary>
internal sealed class PoolEventListener(string pool) : EventListener
{
    private readonly ConcurrentQueue<(string Name, object?[] Payload)> _events = new();

    /// <summary>The names of the events written so far, in order.</summary>
    public IEnumerable<string> Names => _events.Select(e => e.Name);

    /// <summary>The payloads of every event named <paramref name="name"/>, in order.</summary>
    public IEnumerable<object?[]> PayloadsOf(string name) => _events.Where(e => e.Name == name).Select(e => e.Payload);

    protected override void OnEventSourceCreated(EventSource eventSource)
    {
        if (eventSource.Name == "SlimPool")
        {
            EnableEvents(eventSource, EventLevel.Verbose, EventKeywords.All);
        }
    }

    protected override void OnEventWritten(EventWrittenEventArgs eventData)
    {
        if (eventData.EventSource.Name != "SlimPool" || eventData.Payload is not { Count: > 0 } payload || !Equals(payload[0], pool))
        {
            return;
        }

        _events.Enqueue((eventData.EventName!, [.. payload]));
    }
}
