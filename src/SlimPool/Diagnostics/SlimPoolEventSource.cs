using System.Diagnostics.Tracing;

namespace SlimPool.Diagnostics;

/// <summary>
/// The <c>SlimPool</c> event source: what the pools' threads do, for <c>dotnet-trace collect --providers SlimPool</c>
/// and PerfView. Every event names its pool. Off (no session listening), each site costs one field read.
/// </summary>
/// <remarks>
/// <para><b>What a session gets.</b> <c>dotnet-trace</c> opens a provider named without keywords or level with keywords
/// 0 and level Informational, and EventPipe then passes only events that carry no keyword. So the events a user of the
/// plain command needs (workers, spares, the starvation guard, blocking scopes, shutdown) carry none and are
/// Informational: every session that enables the provider gets them. The idle waits (one pair per idle period, the
/// only high-volume events) are Verbose and carry <see cref="Keywords.Idle"/>: <c>--providers SlimPool:0x2:5</c> adds
/// them.</para>
/// <para><b>How they are written.</b> Every event goes through a typed <c>WriteEvent</c> overload or
/// <see cref="EventSource.WriteEventCore"/>: events written through <c>WriteEvent(int, params object[])</c> reach an
/// <see cref="EventListener"/> but not an EventPipe session on this runtime. A <see cref="bool"/> is written as the
/// four bytes the manifest gives it (win:Boolean). The <see cref="EventSource.EventData"/> blocks are stack-allocated
/// and so zeroed (this assembly does not skip locals' initialisation), which leaves their reserved field 0.</para>
/// </remarks>
[EventSource(Name = "SlimPool")]
internal sealed class SlimPoolEventSource : EventSource
{
    public static readonly SlimPoolEventSource Log = new();

    private SlimPoolEventSource()
    {
    }

    [Event(1, Level = EventLevel.Informational, Message = "{0}: worker {1} started (spare: {2})")]
    public void WorkerStarted(string pool, int index, bool spare) => Write(1, pool, index, spare);

    [Event(2, Level = EventLevel.Informational, Message = "{0}: worker {1} stopped (retired spare: {2})")]
    public void WorkerStopped(string pool, int index, bool retired) => Write(2, pool, index, retired);

    [Event(3, Level = EventLevel.Verbose, Keywords = Keywords.Idle, Message = "{0}: worker {1} found no work and waits")]
    public void WorkerIdleWaitStart(string pool, int index) => WriteEvent(3, pool, index);

    [Event(4, Level = EventLevel.Verbose, Keywords = Keywords.Idle, Message = "{0}: worker {1} woke (by work: {2})")]
    public void WorkerIdleWaitStop(string pool, int index, bool woken) => Write(4, pool, index, woken);

    /// <summary>The guard asks for a spare: whether items still completed, and what the workers' clocks said.</summary>
    /// <param name="pool">The pool's name.</param>
    /// <param name="itemsCompleted">Items completed in the period (the workers were blocked though some still finished).</param>
    /// <param name="blockedWorkers">Of those, the workers blocked by their CPU clocks; -1 without clocks.</param>
    /// <param name="sampledWorkers">Live workers whose clocks were read; -1 without clocks.</param>
    [Event(5, Level = EventLevel.Informational, Version = 2, Message = "{0}: the starvation guard asks for a spare worker (items completed: {1}; blocked workers: {2} of {3} sampled, -1 without per-thread clocks)")]
    public unsafe void StarvationGuardFired(string pool, bool itemsCompleted, int blockedWorkers, int sampledWorkers)
    {
        int completed = itemsCompleted ? 1 : 0;
        fixed (char* name = pool)
        {
            EventData* data = stackalloc EventData[4];
            SetString(ref data[0], name, pool);
            SetInt(ref data[1], &completed);
            SetInt(ref data[2], &blockedWorkers);
            SetInt(ref data[3], &sampledWorkers);
            WriteEventCore(5, 4, data);
        }
    }

    [Event(6, Level = EventLevel.Informational, Message = "{0}: a worker entered a blocking scope")]
    public void BlockingScopeEnter(string pool) => WriteEvent(6, pool);

    [Event(7, Level = EventLevel.Informational, Message = "{0}: a worker left a blocking scope")]
    public void BlockingScopeExit(string pool) => WriteEvent(7, pool);

    [Event(8, Level = EventLevel.Informational, Message = "{0}: shutdown requested ({1})")]
    public void ShutdownRequested(string pool, string mode) => WriteEvent(8, pool, mode);

    [Event(9, Level = EventLevel.Informational, Message = "{0}: shutdown finished ({1}, {2} items handed back)")]
    public unsafe void ShutdownFinished(string pool, string mode, int abandoned)
    {
        fixed (char* name = pool)
        fixed (char* modeName = mode)
        {
            EventData* data = stackalloc EventData[3];
            SetString(ref data[0], name, pool);
            SetString(ref data[1], modeName, mode);
            SetInt(ref data[2], &abandoned);
            WriteEventCore(9, 3, data);
        }
    }

    /// <summary>
    /// An item has been running on a worker for at least <paramref name="runningMilliseconds"/>, past
    /// <see cref="SlimThreadPoolOptions.SlowItemThreshold"/>; reported once, while it runs (see <see cref="SlowItemWatch"/>).
    /// </summary>
    /// <param name="pool">The pool's name.</param>
    /// <param name="group">The group's name, or empty for one of the pool's own items.</param>
    /// <param name="worker">The worker's slot (0 for the first worker, as in the thread's name "pool #1").</param>
    /// <param name="item">The delegate's declaring type and method, or the work item's type.</param>
    /// <param name="runningMilliseconds">How long it has been running at least.</param>
    [Event(10, Level = EventLevel.Warning, Message = "{0}: an item of group '{1}' has been running on worker {2} for at least {4} ms: {3}")]
    public unsafe void SlowWorkItem(string pool, string group, int worker, string item, double runningMilliseconds)
    {
        fixed (char* name = pool)
        fixed (char* groupName = group)
        fixed (char* itemName = item)
        {
            EventData* data = stackalloc EventData[5];
            SetString(ref data[0], name, pool);
            SetString(ref data[1], groupName, group);
            SetInt(ref data[2], &worker);
            SetString(ref data[3], itemName, item);
            data[4].DataPointer = (nint)(&runningMilliseconds);
            data[4].Size = sizeof(double);
            WriteEventCore(10, 5, data);
        }
    }

    // The (pool, int, bool) events: WorkerStarted, WorkerStopped, WorkerIdleWaitStop.
    [NonEvent]
    private unsafe void Write(int eventId, string pool, int index, bool flag)
    {
        int value = flag ? 1 : 0;
        fixed (char* name = pool)
        {
            EventData* data = stackalloc EventData[3];
            SetString(ref data[0], name, pool);
            SetInt(ref data[1], &index);
            SetInt(ref data[2], &value);
            WriteEventCore(eventId, 3, data);
        }
    }

    private static unsafe void SetString(ref EventData data, char* chars, string value)
    {
        data.DataPointer = (nint)chars;
        data.Size = (value.Length + 1) * sizeof(char); // with its terminating NUL, as the manifest's strings are read
    }

    private static unsafe void SetInt(ref EventData data, int* value)
    {
        data.DataPointer = (nint)value;
        data.Size = sizeof(int);
    }

    /// <summary>
    /// The keywords a session can name. The events users need carry none, so every session gets them (see the remarks);
    /// <see cref="Idle"/> (0x2) adds the idle waits, at Verbose.
    /// </summary>
    public static class Keywords
    {
        public const EventKeywords Idle = (EventKeywords)2;
    }
}
