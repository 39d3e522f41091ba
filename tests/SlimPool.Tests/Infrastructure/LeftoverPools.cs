namespace SlimPool.Tests.Infrastructure;

/// <summary>
/// Pools whose shutdown's finish runs items: one worker (a locked queue, no starvation guard) whose exit hook posts the
/// given callbacks to the pool's SynchronizationContext. A drain accepts them, after the worker's last look and before
/// the finish's, so the thread that finishes the shutdown runs them, in order.
/// </summary>
internal static class LeftoverPools
{
    public static SlimThreadPool Create(params Action<SlimThreadPool>[] leftovers)
    {
        SlimThreadPool? poolRef = null;
        var pool = new SlimThreadPool(new SlimThreadPoolOptions
        {
            WorkerCount = 1,
            Queue = WorkQueueKind.Locked,
            StarvationTimeout = Timeout.InfiniteTimeSpan,
            OnThreadExit = _ =>
            {
                SlimThreadPool p = Volatile.Read(ref poolRef)!;
                foreach (Action<SlimThreadPool> leftover in leftovers)
                {
                    p.SynchronizationContext.Post(static s => ((Action)s!)(), (Action)(() => leftover(p)));
                }
            },
        });
        Volatile.Write(ref poolRef, pool);
        return pool;
    }
}
