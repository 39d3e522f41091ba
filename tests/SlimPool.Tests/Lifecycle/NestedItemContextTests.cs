using SlimPool.Tests.Infrastructure;

namespace SlimPool.Tests.Lifecycle;

/// <summary>
/// The ExecutionContext of an item run nested inside whatever its thread runs (guarantee 18: its own, else the
/// worker's clean one, never the caller's): an item a full bounded <c>Queue</c> runs inline on a worker, and a leftover
/// a late producer runs itself after its pool's shutdown, on a worker of another pool (found by an adversarial review).
/// </summary>
public sealed class NestedItemContextTests
{
    // A start hook that leaves the flow suppressed makes the worker's baseline a suppressed context: the item run inline
    // starts there, as the worker's next item would, without the outer item's AsyncLocal.
    [Fact]
    public void Queue_FullBoundedPoolWhoseStartHookSuppressedFlow_InlineItemStartsInTheWorkersBaseline()
    {
        var local = new AsyncLocal<string?>();
        using SlimThreadPool pool = TestPools.Create(1, o =>
        {
            o.BoundedCapacity = 1;
            o.MaxWorkers = 1;
            o.OnThreadStart = _ => ExecutionContext.SuppressFlow();
        });
        using var done = new ManualResetEventSlim();
        string? seenInline = "not run";
        bool ranInline = false, suppressedInline = false;
        pool.Queue(() =>
        {
            local.Value = "outer item's";
            int thread = Environment.CurrentManagedThreadId;
            Assert.True(pool.TryQueue(() => { })); // takes the one slot
            pool.Queue(() =>
            {
                ranInline = Environment.CurrentManagedThreadId == thread;
                seenInline = local.Value;
                suppressedInline = ExecutionContext.IsFlowSuppressed();
            });
            done.Set();
        });

        Bounded.Wait(done, "the outer item");
        Assert.True(ranInline, "the full Queue ran the item inline");
        Assert.Null(seenInline);
        Assert.True(suppressedInline, "the worker's baseline, as its hook left it");
    }

    // Pool A's leftover runs on pool B's worker, whose start hook set an AsyncLocal: that is B's baseline, not A's.
    [Fact]
    public void Queue_LateItemRunOnAnotherPoolsWorker_DoesNotSeeThatPoolsStartHookAsyncLocal()
    {
        var hookLocal = new AsyncLocal<string?>();
        var queue = new GatedQueue();
        using SlimThreadPool poolA = queue.CreatePool();
        using SlimThreadPool poolB = TestPools.Create(1, o => o.OnThreadStart = _ => hookLocal.Value = "B's hook");
        using var done = new ManualResetEventSlim();
        string? seenByA = "not run", seenByB = "not run";
        queue.HoldNextEnqueue();
        poolB.Queue(() =>
        {
            seenByB = hookLocal.Value;
            poolA.Queue(() => seenByA = hookLocal.Value);
            done.Set();
        });

        Bounded.Wait(queue.Held, "pool B's item at pool A's enqueue");
        poolA.Dispose();
        queue.Release();
        Bounded.Wait(done, "pool B's item");
        Assert.Equal("B's hook", seenByB);
        Assert.Null(seenByA);
    }

    // The same with a group of pool A: its turn, run by the late producer, takes that context as its items' baseline.
    [Fact]
    public void GroupQueue_LateItemRunOnAnotherPoolsWorker_DoesNotSeeThatPoolsStartHookAsyncLocal()
    {
        var hookLocal = new AsyncLocal<string?>();
        var queue = new GatedQueue();
        using SlimThreadPool poolA = queue.CreatePool();
        SlimThreadPoolGroup group = poolA.CreateGroup();
        using SlimThreadPool poolB = TestPools.Create(1, o => o.OnThreadStart = _ => hookLocal.Value = "B's hook");
        using var done = new ManualResetEventSlim();
        string? seenByA = "not run";
        queue.HoldNextEnqueue();
        poolB.Queue(() =>
        {
            group.Queue(() => seenByA = hookLocal.Value);
            done.Set();
        });

        Bounded.Wait(queue.Held, "pool B's item at pool A's enqueue");
        poolA.Dispose();
        queue.Release();
        Bounded.Wait(done, "pool B's item");
        Assert.Null(seenByA);
    }
}
