using System.Collections.Concurrent;
using System.Diagnostics.Tracing;

namespace SlimPool.GuardProbe;

/// <summary>Records the starvation guard's events (the <c>SlimPool</c> event source's StarvationGuardFired).</summary>
internal sealed class GuardListener : EventListener
{
    private readonly ConcurrentQueue<string> _fired = new();

    /// <summary>Each event's payload after the pool's name, as "completed/blocked/sampled".</summary>
    public IEnumerable<string> Fired => _fired;

    protected override void OnEventSourceCreated(EventSource eventSource)
    {
        if (eventSource.Name == "SlimPool")
        {
            EnableEvents(eventSource, EventLevel.Informational, (EventKeywords)4); // Blocking
        }
    }

    protected override void OnEventWritten(EventWrittenEventArgs eventData)
    {
        if (eventData.EventName == "StarvationGuardFired" && eventData.Payload is { } payload)
        {
            _fired.Enqueue(string.Join('/', payload.Skip(1)));
        }
    }
}
