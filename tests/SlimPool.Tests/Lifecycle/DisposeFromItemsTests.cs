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

    // An item the shutdown runs inside a group's item runs as a plain pool item does: outside that group, under the
    // workers' SynchronizationContext (found by an adversarial hunt).
    [Fact]
    public void Dispose_FromASerialGroupsItemOnTheWorker_RunsTheLeftoverPlainItemOutsideTheGroup()
    {
        using SlimThreadPool pool = TestPools.Create(workers: 1);
        SlimThreadPoolGroup group = pool.CreateGroup();
        using var groupItemStarted = new ManualResetEventSlim();
        using var go = new ManualResetEventSlim();
        SynchronizationContext? seenByPlain = null;
        SynchronizationContext? poolContext = null;
        bool plainRan = false;
        bool plainRanOnGroupThread = false;
        int groupThread = -1;

        pool.Queue(() => poolContext = SynchronizationContext.Current);
        Bounded.Until(() => poolContext is not null, "the pool's context seen by a plain item");

        group.Queue(() =>
        {
            groupThread = Environment.CurrentManagedThreadId;
            groupItemStarted.Set();
            go.Wait(Bounded.Timeout);
            pool.Dispose(); // on the pool's worker: runs what is left here
        });
        Bounded.Wait(groupItemStarted, "the group item");
        pool.Queue(() =>
        {
            seenByPlain = SynchronizationContext.Current;
            plainRanOnGroupThread = Environment.CurrentManagedThreadId == groupThread;
            plainRan = true;
        });
        go.Set();
        Bounded.Until(() => Volatile.Read(ref plainRan), "the plain item");
        Bounded.Run(pool.Dispose, "Dispose");

        Assert.True(plainRanOnGroupThread, "precondition: the group item's Dispose ran the plain item");
        Assert.NotSame(group.SynchronizationContext, seenByPlain); // it ran under the group's context before
        Assert.Same(poolContext, seenByPlain);
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
