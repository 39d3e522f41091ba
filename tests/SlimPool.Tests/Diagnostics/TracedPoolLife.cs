using SlimPool.Tests.Infrastructure;

namespace SlimPool.Tests.Diagnostics;

/// <summary>
/// A pool's life that writes every event of the <c>SlimPool</c> event source: workers start, an unhinted block long
/// enough for the starvation guard to add a spare, a blocking scope, idle waits, and a shutdown.
/// </summary>
internal static class TracedPoolLife
{
    public static void Run(string name)
    {
        var pool = new SlimThreadPool(new SlimThreadPoolOptions { WorkerCount = 1, Name = name, StarvationTimeout = TimeSpan.FromMilliseconds(20) });
        using var done = new CountdownEvent(3);
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
    }
}
