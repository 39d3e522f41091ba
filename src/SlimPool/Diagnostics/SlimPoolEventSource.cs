using System.Diagnostics.Tracing;

namespace SlimPool.Diagnostics;

/// <summary>
/// The <c>SlimPool</c> event source: what the pools' threads do, for <c>dotnet-trace collect --providers SlimPool</c>
/// and PerfView. Every event names its pool. Off (no session listening), each site costs one field read.
/// </summary>
/// <remarks>Keywords: <see cref="Keywords.Workers"/> (worker start and stop, spares), <see cref="Keywords.Idle"/> (a worker
/// entering and leaving its idle wait: verbose, one pair per idle period), <see cref="Keywords.Blocking"/> (blocking
/// scopes, the starvation guard), <see cref="Keywords.Lifecycle"/> (shutdown).</remarks>
[EventSource(Name = "SlimPool")]
internal sealed class SlimPoolEventSource : EventSource
{
    public static readonly SlimPoolEventSource Log = new();

    private SlimPoolEventSource()
    {
    }

    [Event(1, Level = EventLevel.Informational, Keywords = Keywords.Workers, Message = "{0}: worker {1} started (spare: {2})")]
    public void WorkerStarted(string pool, int index, bool spare) => WriteEvent(1, pool, index, spare);

    [Event(2, Level = EventLevel.Informational, Keywords = Keywords.Workers, Message = "{0}: worker {1} stopped (retired spare: {2})")]
    public void WorkerStopped(string pool, int index, bool retired) => WriteEvent(2, pool, index, retired);

    [Event(3, Level = EventLevel.Verbose, Keywords = Keywords.Idle, Message = "{0}: worker {1} found no work and waits")]
    public void WorkerIdleWaitStart(string pool, int index) => WriteEvent(3, pool, index);

    [Event(4, Level = EventLevel.Verbose, Keywords = Keywords.Idle, Message = "{0}: worker {1} woke (by work: {2})")]
    public void WorkerIdleWaitStop(string pool, int index, bool woken) => WriteEvent(4, pool, index, woken);

    /// <summary>The guard asks for a spare: whether items still completed, and what the workers' clocks said.</summary>
    /// <param name="pool">The pool's name.</param>
    /// <param name="itemsCompleted">Items completed in the period (the workers were blocked though some still finished).</param>
    /// <param name="blockedWorkers">Of those, the workers blocked by their CPU clocks; -1 without clocks.</param>
    /// <param name="sampledWorkers">Live workers whose clocks were read; -1 without clocks.</param>
    [Event(5, Level = EventLevel.Informational, Keywords = Keywords.Blocking, Version = 2, Message = "{0}: the starvation guard asks for a spare worker (items completed: {1}; blocked workers: {2} of {3} sampled, -1 without per-thread clocks)")]
    public void StarvationGuardFired(string pool, bool itemsCompleted, int blockedWorkers, int sampledWorkers) =>
        WriteEvent(5, pool, itemsCompleted, blockedWorkers, sampledWorkers);

    [Event(6, Level = EventLevel.Verbose, Keywords = Keywords.Blocking, Message = "{0}: a worker entered a blocking scope")]
    public void BlockingScopeEnter(string pool) => WriteEvent(6, pool);

    [Event(7, Level = EventLevel.Verbose, Keywords = Keywords.Blocking, Message = "{0}: a worker left a blocking scope")]
    public void BlockingScopeExit(string pool) => WriteEvent(7, pool);

    [Event(8, Level = EventLevel.Informational, Keywords = Keywords.Lifecycle, Message = "{0}: shutdown requested ({1})")]
    public void ShutdownRequested(string pool, string mode) => WriteEvent(8, pool, mode);

    [Event(9, Level = EventLevel.Informational, Keywords = Keywords.Lifecycle, Message = "{0}: shutdown finished ({1}, {2} items handed back)")]
    public void ShutdownFinished(string pool, string mode, int abandoned) => WriteEvent(9, pool, mode, abandoned);

    /// <summary>The event groups a session can enable.</summary>
    public static class Keywords
    {
        public const EventKeywords Workers = (EventKeywords)1;
        public const EventKeywords Idle = (EventKeywords)2;
        public const EventKeywords Blocking = (EventKeywords)4;
        public const EventKeywords Lifecycle = (EventKeywords)8;
    }
}
