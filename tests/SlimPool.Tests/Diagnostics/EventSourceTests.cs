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
        Assert.Contains(listener.PayloadsOf("WorkerStarted"), payload => payload[2] is true); // the guard's spare
        Assert.Contains(listener.PayloadsOf("StarvationGuardFired"), payload => payload[1] is false); // nothing completed
    }
}
