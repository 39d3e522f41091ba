using SlimPool.Tests.Infrastructure;

namespace SlimPool.Tests.Lifecycle;

/// <summary>A wide group whose items call back into it from nested items: re-entered Sends and inlined tasks count against its limit.</summary>
public sealed class WideGroupReentryTests
{
    // A group of 2: each item runs an inline pool item (full pool) that Sends back to the group and waits for a task on
    // the group's scheduler; callbacks, tasks and items counted together never exceed 2, and every item runs once.
    [Fact]
    public void WideGroup_ReenteredSendsAndInlinedTasks_StayWithinTheLimit()
    {
        using SlimThreadPool pool = TestPools.Create(workers: 2, o => { o.BoundedCapacity = 2; o.MaxWorkers = 3; });
        SlimThreadPoolGroup g = pool.CreateGroup(new SlimGroupOptions { MaxConcurrency = 2 });
        int running = 0, max = 0, ran = 0;
        const int N = 400;
        using var all = new CountdownEvent(N);
        void Enter() { int r = Interlocked.Increment(ref running); Atomic.Max(ref max, r); Thread.SpinWait(200); }
        void Exit() => Interlocked.Decrement(ref running);
        for (int i = 0; i < N; i++)
        {
            g.Queue(() =>
            {
                Enter();
                try
                {
                    while (pool.TryQueue(() => { })) { }
                    Exit();
                    pool.Queue(() => // inline, or queued over... either way, calls back
                    {
                        g.SynchronizationContext.Send(_ => { Enter(); Exit(); }, null);
                        Task t = Task.Factory.StartNew(() => { Enter(); Exit(); }, CancellationToken.None, TaskCreationOptions.None, g.TaskScheduler);
                        t.Wait();
                    });
                    Enter();
                }
                finally { Exit(); Interlocked.Increment(ref ran); all.Signal(); }
            });
        }
        Assert.True(all.Wait(TimeSpan.FromSeconds(60)), $"hung at {ran}");
        Assert.True(max <= 2, $"max {max}");
    }
}
