using SlimPool.Tests.Infrastructure;

namespace SlimPool.Tests.Diagnostics;

/// <summary>The <c>SlimPool</c> event source: each event a pool's life produces, named with the pool.</summary>
public sealed class EventSourceTests
{
    [Fact]
    public void EventSource_InformationalListener_GetsTheLifeEventsButNoIdleEvents()
    {
        // The idle events are verbose: a listener that did not ask for them (and every pool's workers, unless some
        // listener did) pays nothing at each wait.
        string name = $"trace-{Guid.NewGuid():N}";
        using var listener = new PoolEventListener(name);
        using (SlimThreadPool pool = TestPools.Create(1, name: name))
        {
            using var ran = new ManualResetEventSlim();
            pool.Queue(ran.Set);
            Bounded.Wait(ran, "the item");
            Bounded.Until(() => pool.BusyWorkerCount == 0, "the worker to wait for work");
        }

        string[] events = [.. listener.Names];
        Assert.Contains("WorkerStarted", events);
        Assert.Contains("ShutdownFinished", events);
        Assert.DoesNotContain("WorkerIdleWaitStart", events);
        Assert.DoesNotContain("WorkerIdleWaitStop", events);
    }

    [Fact]
    public void EventSource_PoolLifeWithBlockingAndTheGuard_WritesEachEventNamingThePool()
    {
        string name = $"trace-{Guid.NewGuid():N}";
        using var listener = new PoolEventListener(name, verbose: true);
        TracedPoolLife.Run(name);

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
        Assert.Contains("SlowWorkItem", events);
        Assert.Contains(listener.PayloadsOf("WorkerStarted"), payload => payload[2] is true); // the guard's spare
        Assert.Contains(listener.PayloadsOf("StarvationGuardFired"), payload => payload[1] is false); // nothing completed
        object?[] slow = Assert.Single(listener.PayloadsOf("SlowWorkItem")); // once, though it ran three thresholds
        Assert.Equal("", slow[1]); // the pool's own item, no group
        Assert.Equal(0, slow[2]); // the first worker
        Assert.Equal($"{typeof(TracedPoolLife).FullName}.{nameof(TracedPoolLife.SleepThenSignal)}", slow[3]);
        Assert.InRange((double)slow[4]!, 100, Bounded.Timeout.TotalMilliseconds);
    }
}
