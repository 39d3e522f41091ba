using Microsoft.Extensions.Logging;

namespace SlimPool.Tests.DependencyInjection;

/// <summary>One message a <see cref="CapturingLoggerProvider"/> received.</summary>
internal sealed record CapturedLog(LogLevel Level, EventId EventId, string Message, IReadOnlyDictionary<string, object?> Values);
