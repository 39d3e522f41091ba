using System.Collections.Concurrent;
using System.Diagnostics.Tracing;
using SlimPool.Tests.Infrastructure;

namespace SlimPool.Tests.Diagnostics;

/// <summary>The <c>SlimPool</c> event source: each event a pool's life produces, named with the pool.</summary>
public sealed class EventSourceTests
{
    [Fact]
    public void EventSource_PoolLifeWithBlockingAndTheGuard_WritesEachEventNamingThePool()
    {
        string name = $"trace-{Guid.NewGuid():N}";
        using var listener = new PoolEventListener(name);
        var pool = new SlimThreadPool(new SlimThreadPoolOptions { WorkerCount = 1, Name = name, StarvationTimeout = TimeSpan.FromMilliseconds(20) });
        using var done = new CountdownEvent(3);

        // An unhinted block long enough for the guard to add a spare for the items behind it; then a hinted scope.
        pool.Queue(() =>
        {
            Thread.Sleep(300);
            done.Signal();
        });
        pool.Queue(() =>
        {
            using (pool.EnterBlocking())
            {
                Thread.Sleep(1);
            }

            done.Signal();
        });
        pool.Queue(() => done.Signal());
        Bounded.Wait(done, "the items");
        Thread.Sleep(50); // a worker goes idle
        Bounded.Run(pool.Dispose, "Dispose");

        string[] events = [.. listener.Names];
        Assert.Contains("WorkerStarted", events);
        Assert.Contains("WorkerStopped", events);
        Assert.Contains("WorkerIdleWaitStart", events);
        Assert.Contains("WorkerIdleWaitStop", events);
        Assert.Contains("BlockingScopeEnter", events);
        Assert.Contains("BlockingScopeExit", events);
        Assert.Contains("StarvationGuardFired", events);
        Assert.Contains("ShutdownRequested", events);
        Assert.Contains("ShutdownFinished", events);
        Assert.True(listener.SpareStarted, "no WorkerStarted event for the guard's spare");
    }

    private sealed class PoolEventListener(string pool) : EventListener
    {
        private readonly ConcurrentQueue<string> _names = new();

        public IEnumerable<string> Names => _names;

        public bool SpareStarted { get; private set; }

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

            _names.Enqueue(eventData.EventName!);
            if (eventData.EventName == "WorkerStarted" && payload[2] is true)
            {
                SpareStarted = true;
            }
        }
    }
}
