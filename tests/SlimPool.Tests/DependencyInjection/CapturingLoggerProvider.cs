using System.Collections.Concurrent;
using Microsoft.Extensions.Logging;

namespace SlimPool.Tests.DependencyInjection;

/// <summary>A logger provider that keeps every message of the categories it is asked for, to assert on.</summary>
internal sealed class CapturingLoggerProvider : ILoggerProvider, ILogger
{
    private readonly ConcurrentQueue<CapturedLog> _logs = new();

    public IReadOnlyCollection<CapturedLog> Logs => _logs;

    public ILogger CreateLogger(string categoryName) => this;

    public IDisposable? BeginScope<TState>(TState state)
        where TState : notnull => null;

    public bool IsEnabled(LogLevel logLevel) => true;

    public void Log<TState>(LogLevel logLevel, EventId eventId, TState state, Exception? exception, Func<TState, Exception?, string> formatter)
    {
        var values = new Dictionary<string, object?>(StringComparer.Ordinal);
        if (state is IEnumerable<KeyValuePair<string, object?>> pairs)
        {
            foreach (KeyValuePair<string, object?> pair in pairs)
            {
                values[pair.Key] = pair.Value;
            }
        }

        _logs.Enqueue(new CapturedLog(logLevel, eventId, formatter(state, exception), values));
    }

    public void Dispose()
    {
    }
}
