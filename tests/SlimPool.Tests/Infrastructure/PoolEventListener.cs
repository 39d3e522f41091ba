using System.Collections.Concurrent;
using System.Diagnostics.Tracing;

namespace SlimPool.Tests.Infrastructure;

/// <summary>
/// Records the <c>SlimPool</c> event source's events about one pool (the first payload field names it): informational
/// and above, and the verbose idle events too where <paramref name="verbose"/>. The source is the process's, so while a
/// verbose listener lives every pool's workers write an idle event at each wait, other tests' pools too.
/// </summary>
/// <remarks>
/// <see cref="OnEventSourceCreated"/> runs inside the base constructor; the parameters are read there all the same, since
/// a primary constructor stores the parameters it captures before it calls the base constructor.
/// </remarks>
internal sealed class PoolEventListener(string pool, bool verbose = false) : EventListener
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
            EnableEvents(eventSource, verbose ? EventLevel.Verbose : EventLevel.Informational, EventKeywords.All);
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
