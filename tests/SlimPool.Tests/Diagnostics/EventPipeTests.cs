using System.Collections.Concurrent;
using System.Diagnostics.Tracing;
using Microsoft.Diagnostics.NETCore.Client;
using Microsoft.Diagnostics.Tracing;
using SlimPool.Tests.Infrastructure;

namespace SlimPool.Tests.Diagnostics;

/// <summary>
/// The <c>SlimPool</c> provider through a real EventPipe session on this process, as <c>dotnet-trace</c> opens one:
/// what a user who names the provider gets, and what the keywords and levels add.
/// </summary>
[Collection(RunsAloneCollection.Name)]
public sealed class EventPipeTests
{
    private static readonly string[] s_defaultEvents =
        ["WorkerStarted", "WorkerStopped", "StarvationGuardFired", "BlockingScopeEnter", "BlockingScopeExit", "ShutdownRequested", "ShutdownFinished", "SlowWorkItem"];

    /// <summary><c>dotnet-trace collect --providers SlimPool</c>: no keywords (0), level Informational.</summary>
    [Fact]
    public void EventPipeSession_ProviderNamedWithoutKeywordsOrLevel_RecordsWorkerGuardBlockingAndShutdownEvents()
    {
        (string[] names, List<IReadOnlyList<object>> payloads) = Trace(keywords: 0, EventLevel.Informational);

        Assert.All(s_defaultEvents, name => Assert.Contains(name, names));
        Assert.DoesNotContain("WorkerIdleWaitStart", names); // verbose, and opt-in by its keyword
        Assert.Contains(payloads, payload => payload[1] is false); // the guard's firing says nothing completed
        Assert.Contains(payloads, payload => payload.Count == 5 && payload[3] is string item && item.EndsWith(nameof(TracedPoolLife.SleepThenSignal), StringComparison.Ordinal));
    }

    /// <summary><c>--providers SlimPool:0x2:5</c>: the idle waits as well (one pair per idle period).</summary>
    [Fact]
    public void EventPipeSession_IdleKeywordAtVerbose_AlsoRecordsIdleWaits()
    {
        (string[] names, _) = Trace(keywords: 0x2, EventLevel.Verbose);

        Assert.All(s_defaultEvents, name => Assert.Contains(name, names));
        Assert.Contains("WorkerIdleWaitStart", names);
        Assert.Contains("WorkerIdleWaitStop", names);
    }

    /// <summary>
    /// The command itself: <c>dotnet-trace collect --providers SlimPool</c> (the repository's local tool, restored here as
    /// <c>dotnet tool restore</c> would) around a child process whose pool starts, runs items and is disposed.
    /// </summary>
    [Fact]
    public void DotnetTrace_CollectWithTheDocumentedCommand_RecordsThePoolsWorkerAndShutdownEvents()
    {
        string trace = Path.Combine(Path.GetTempPath(), $"slimpool-{Guid.NewGuid():N}.nettrace");
        try
        {
            ChildProcess.Run(["dotnet", "tool", "restore"], "dotnet tool restore");
            ProbeProcess.CpuFlood(workers: 1, seconds: 0.3, prefix: ["dotnet", "dotnet-trace", "collect", "--providers", "SlimPool", "-o", trace, "--"]);

            var counts = new Dictionary<string, int>();
            using (var source = new EventPipeEventSource(trace))
            {
                source.Dynamic.All += e =>
                {
                    if (e.ProviderName == "SlimPool")
                    {
                        counts[e.EventName] = counts.GetValueOrDefault(e.EventName) + 1;
                    }
                };
                source.Process();
            }

            string seen = string.Join(", ", counts.Select(c => $"{c.Key} {c.Value}"));
            Assert.True(counts.GetValueOrDefault("WorkerStarted") >= 1 && counts.GetValueOrDefault("WorkerStopped") >= 1, $"worker events: {seen}");
            Assert.True(counts.GetValueOrDefault("ShutdownRequested") == 1 && counts.GetValueOrDefault("ShutdownFinished") == 1, $"shutdown events: {seen}");
        }
        finally
        {
            File.Delete(trace);
        }
    }

    private static (string[] Names, List<IReadOnlyList<object>> Payloads) Trace(long keywords, EventLevel level)
    {
        string pool = $"pipe-{Guid.NewGuid():N}";
        var names = new ConcurrentQueue<string>();
        var payloads = new ConcurrentQueue<IReadOnlyList<object>>();
        var client = new DiagnosticsClient(Environment.ProcessId);
        using EventPipeSession session = client.StartEventPipeSession([new EventPipeProvider("SlimPool", level, keywords)], requestRundown: false);
        Task reader = Task.Factory.StartNew(
            () =>
            {
                using var source = new EventPipeEventSource(session.EventStream);
                source.Dynamic.All += e =>
                {
                    if (e.ProviderName == "SlimPool" && e.PayloadValue(0) is string name && name == pool)
                    {
                        names.Enqueue(e.EventName.Replace("/", string.Empty, StringComparison.Ordinal)); // TraceEvent writes Start/Stop pairs as "X/Start"
                        if (e.EventName is "StarvationGuardFired" or "SlowWorkItem")
                        {
                            payloads.Enqueue([.. Enumerable.Range(0, e.PayloadNames.Length).Select(e.PayloadValue)]);
                        }
                    }
                };
                source.Process();
            },
            TaskCreationOptions.LongRunning);

        TracedPoolLife.Run(pool);
        Thread.Sleep(500); // EventPipe flushes its buffers to the stream about every 100 ms
        session.Stop();
        Bounded.Wait(reader, "the trace's reader to reach the end of the session's stream");
        return ([.. names], [.. payloads]);
    }
}
