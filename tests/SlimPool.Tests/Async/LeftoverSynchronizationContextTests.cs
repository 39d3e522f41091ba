using SlimPool.Tests.Infrastructure;

namespace SlimPool.Tests.Async;

/// <summary>
/// An item the shutdown runs itself (a worker's <c>Dispose</c> loop, the thread that finishes a drain) runs under the
/// workers' SynchronizationContext: the pool's, or none when <see cref="SlimThreadPoolOptions.UseSynchronizationContext"/>
/// is off (guarantee 18). Under the pool's context there, a flow's <c>await</c> posted its continuation as a plain item,
/// outside the pool's TaskScheduler, and the await after that one went to the built-in pool (found by the composition
/// property: steps of <c>pool.Run</c> flows ran on '.NET TP Worker').
/// </summary>
public sealed class LeftoverSynchronizationContextTests
{
    [Fact]
    public void Dispose_OnAWorkerOfAPoolWithoutSynchronizationContext_RunsLeftoversWithoutOneAndTheirAwaitsStayOnThePool()
    {
        SlimThreadPool pool = TestPools.Create(workers: 1, o => o.UseSynchronizationContext = false);
        var contexts = new List<string>();
        var threads = new List<string?>();
        using var queued = new ManualResetEventSlim();
        Task? flow = null;
        pool.Queue(() =>
        {
            queued.Wait(Bounded.Timeout);
            pool.Dispose(); // on the worker: runs the flow's first step here, as a leftover
        });
        flow = pool.Run(async () =>
        {
            for (int step = 0; step < 3; step++)
            {
                lock (contexts)
                {
                    contexts.Add(SynchronizationContext.Current?.GetType().Name ?? "none");
                    threads.Add(Thread.CurrentThread.Name);
                }

                await Task.Yield();
            }
        });
        queued.Set();

        Bounded.Wait(flow, "the flow");
        Bounded.Run(pool.Dispose, "Dispose");

        Assert.All(contexts, context => Assert.Equal("none", context));
        Assert.All(threads, name => Assert.StartsWith(pool.Name + " #", name ?? "(unnamed)", StringComparison.Ordinal));
    }
}
