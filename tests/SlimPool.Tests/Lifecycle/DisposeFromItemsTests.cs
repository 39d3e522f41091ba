using SlimPool.Tests.Infrastructure;

namespace SlimPool.Tests.Lifecycle;

/// <summary>
/// <c>Dispose</c> and <c>DisposeAsync</c> called from inside the pool's items, as an item that stops the application
/// does: on a worker the first call runs what is left on that thread; an item it runs that disposes the pool again must
/// not run the rest inside itself, one item inside the next, as deep as the queue is long.
/// </summary>
public sealed class DisposeFromItemsTests
{
    private const int Items = 300;

    [ThreadStatic]
    private static int t_nesting;

    [Theory]
    [MemberData(nameof(TestPools.QueueAndIdleWaits), MemberType = typeof(TestPools))]
    public void Dispose_CalledByEveryItemOnAWorker_RunsNoItemInsideAnItemItRan(WorkQueueKind queue, IdleWaitKind idleWait)
    {
        int deepest = RunItemsThatDispose(queue, idleWait, static pool => pool.Dispose());

        // The first item's Dispose runs the others (nesting 2); none of theirs runs any.
        Assert.InRange(deepest, 1, 2);
    }

    [Theory]
    [MemberData(nameof(TestPools.QueueAndIdleWaits), MemberType = typeof(TestPools))]
    public void DisposeAsync_CalledByEveryItemOnAWorker_RunsNoItemInsideAnItemItRan(WorkQueueKind queue, IdleWaitKind idleWait)
    {
        int deepest = RunItemsThatDispose(queue, idleWait, static pool => _ = pool.DisposeAsync());

        Assert.InRange(deepest, 1, 2);
    }

    // Queues Items items behind the held worker, each disposing the pool; returns the deepest nesting of our items on
    // one thread, after checking that every item ran once.
    private static int RunItemsThatDispose(WorkQueueKind queue, IdleWaitKind idleWait, Action<SlimThreadPool> dispose)
    {
        using SlimThreadPool pool = TestPools.Create(workers: 1, options =>
        {
            options.Queue = queue;
            options.IdleWait = idleWait;
        });
        int ran = 0, deepest = 0;
        using (var blocked = new BlockedWorkers(pool))
        {
            for (int i = 0; i < Items; i++)
            {
                pool.Queue(() =>
                {
                    int nesting = ++t_nesting;
                    Atomic.Max(ref deepest, nesting);
                    try
                    {
                        Interlocked.Increment(ref ran);
                        dispose(pool);
                    }
                    finally
                    {
                        t_nesting--;
                    }
                });
            }
        }

        Assert.True(pool.ShutdownAsync(ShutdownMode.Drain).Wait(Bounded.Timeout), "the drain did not finish");
        Assert.Equal(Items, Volatile.Read(ref ran));
        return Volatile.Read(ref deepest);
    }
}
