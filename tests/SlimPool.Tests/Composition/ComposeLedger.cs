using System.Collections.Concurrent;
using System.Diagnostics;

namespace SlimPool.Tests.Composition;

/// <summary>
/// Everything a program's run records: its items, its shutdowns, the exceptions the pool reported, and anything the API
/// did that no promise allows for (a queue call that threw something unexpected, a call that hung). One sequence
/// number orders every event the checks compare (a start, an end, a call, a return) across threads: each is an
/// interlocked increment, so an event that happens before another gets a smaller number.
/// </summary>
internal sealed class ComposeLedger
{
    private readonly Stopwatch _clock = Stopwatch.StartNew();
    private long _seq;
    private long _lastActivityTicks;

    public ConcurrentQueue<ItemRecord> Items { get; } = new();

    public ConcurrentQueue<ShutdownRecord> Shutdowns { get; } = new();

    /// <summary>The producers' waits for an idle pool or group.</summary>
    public ConcurrentQueue<IdleWaitRecord> IdleWaits { get; } = new();

    /// <summary>The labels of the items whose exceptions the pool's UnhandledException callback received.</summary>
    public ConcurrentQueue<string> ReportedExceptions { get; } = new();

    /// <summary>API behaviour outside every promise: an unexpected exception from a call, a call or a thread that hung.</summary>
    public ConcurrentQueue<string> Surprises { get; } = new();

    public long Next() => Interlocked.Increment(ref _seq);

    public TimeSpan Elapsed => _clock.Elapsed;

    /// <summary>How long since a step last started or ended (the settle loop waits for quiet).</summary>
    public TimeSpan SinceActivity => TimeSpan.FromTicks(_clock.Elapsed.Ticks - Volatile.Read(ref _lastActivityTicks));

    public void Touch() => Volatile.Write(ref _lastActivityTicks, _clock.Elapsed.Ticks);
}
