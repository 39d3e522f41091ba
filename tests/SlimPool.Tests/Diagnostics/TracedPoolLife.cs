using SlimPool.Tests.Infrastructure;

namespace SlimPool.Tests.Diagnostics;

/// <summary>
/// A pool's life that writes every event of the <c>SlimPool</c> event source: workers start, an unhinted block long
/// enough for the starvation guard to add a spare and for the slow-item detector to report it, a blocking scope, idle
/// waits, and a shutdown.
/// </summary>
internal static class TracedPoolLife
{
    public static void Run(string name)
    {
        var pool = new SlimThreadPool(new SlimThreadPoolOptions
        {
            WorkerCount = 1,
            Name = name,
            StarvationTimeout = TimeSpan.FromMilliseconds(20),
            SlowItemThreshold = TimeSpan.FromMilliseconds(100),
        });
        using var done = new CountdownEvent(3);
        pool.Queue(SleepThenSignal, done);
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

    /// <summary>The slow item: the <c>SlowWorkItem</c> event names it by this method.</summary>
    public static void SleepThenSignal(object? done)
    {
        Thread.Sleep(300);
        ((CountdownEvent)done!).Signal();
    }
}
