using SlimPool.Tests.Infrastructure;

namespace SlimPool.Tests.Diagnostics;

/// <summary>
/// The slow-item watch and items run inside other items (guarantee 29): an item run inline by a full bounded <c>Queue</c>
/// or by a <c>Dispose</c> on a worker is timed on its own and named as itself; the outer item, timed again from the
/// inner one's return, is reported once however many items it runs inside it.
/// </summary>
[Collection(RunsAloneCollection.Name)] // timing: each waits for the watch to see an item for a few thresholds
public sealed class SlowItemNestingTests
{
    private static readonly TimeSpan s_threshold = TimeSpan.FromMilliseconds(40);

    // The outer item, reported, then ran a short item inline and went on: its clock started again at the inner item's
    // return, and it was reported a second time (SlowWorkItemCount 2; found by an adversarial hunt).
    [Fact]
    public void SlowItem_ReportedThenRunsAShortItemInlineAndGoesOn_IsReportedOnce()
    {
        string name = $"slow-inline-{Guid.NewGuid():N}";
        using var listener = new PoolEventListener(name);
        using SlimThreadPool pool = OneWatchedWorker(name, boundedCapacity: 1);
        using var done = new ManualResetEventSlim();
        pool.Queue(() =>
        {
            Bounded.Until(() => pool.SlowWorkItemCount >= 1, "the outer item to be reported");
            pool.Queue(static () => { }); // the queue (capacity 1) is full now
            pool.Queue(static () => { }); // so this one runs inline, here: a short item
            Thread.Sleep(8 * s_threshold); // and the outer item goes on
            done.Set();
        });

        Bounded.Wait(done, "the outer item to finish");
        Bounded.Wait(pool.WaitForIdleAsync(), "the pool to go idle");

        Assert.True(pool.SlowWorkItemCount == 1, $"one slow item ran, reported {pool.SlowWorkItemCount} times: {Reports(listener)}");
    }

    // An item a worker's Dispose ran was timed as part of the outer item and named as it (found by an adversarial hunt).
    [Fact]
    public void SlowItem_RunByADisposeOnTheWorker_IsReportedAsItself()
    {
        string name = $"slow-dispose-{Guid.NewGuid():N}";
        using var listener = new PoolEventListener(name);
        SlimThreadPool pool = OneWatchedWorker(name);
        using var done = new ManualResetEventSlim();
        pool.Queue(() =>
        {
            pool.Queue(SlowLeftover);
            pool.Dispose(); // on the worker: runs the slow leftover here, inside this short item
            done.Set();
        });

        Bounded.Wait(done, "the outer item and the leftover it ran");
        Bounded.Run(pool.Dispose, "Dispose");

        string[] names = Names(listener);
        Assert.True(
            pool.SlowWorkItemCount == 1 && names.Length == 1 && names[0].EndsWith(nameof(SlowLeftover), StringComparison.Ordinal),
            $"one slow item ran ({nameof(SlowLeftover)}), reported {pool.SlowWorkItemCount} times: {Reports(listener)}");
    }

    // Two slow items, the second run by the first one's Dispose: one report (the outer item's) before.
    [Fact]
    public void SlowItem_ReportedThenItsDisposeRunsAnotherSlowItem_BothAreReported()
    {
        string name = $"slow-dispose2-{Guid.NewGuid():N}";
        using var listener = new PoolEventListener(name);
        SlimThreadPool pool = OneWatchedWorker(name);
        using var done = new ManualResetEventSlim();
        pool.Queue(() =>
        {
            pool.Queue(SlowLeftover);
            Bounded.Until(() => pool.SlowWorkItemCount >= 1, "the outer item to be reported");
            pool.Dispose();
            done.Set();
        });

        Bounded.Wait(done, "the outer item and the leftover it ran");
        Bounded.Run(pool.Dispose, "Dispose");

        string[] names = Names(listener);
        Assert.True(
            pool.SlowWorkItemCount == 2 && names.Count(n => n.EndsWith(nameof(SlowLeftover), StringComparison.Ordinal)) == 1,
            $"two slow items ran, reported {pool.SlowWorkItemCount} times: {Reports(listener)}");
    }

    private static void SlowLeftover() => Thread.Sleep(8 * s_threshold);

    // One worker and no spare, so every item runs on the one slot the watch looks at.
    private static SlimThreadPool OneWatchedWorker(string name, int? boundedCapacity = null) => TestPools.Create(1, o =>
    {
        o.MaxWorkers = 1;
        o.BoundedCapacity = boundedCapacity;
        o.SlowItemThreshold = s_threshold;
    }, name);

    // The event follows the count: wait a moment for it (bounded) before reading what was reported.
    private static string[] Names(PoolEventListener listener)
    {
        Thread.Sleep(50);
        return [.. listener.PayloadsOf("SlowWorkItem").Select(p => (string)p[3]!)];
    }

    private static string Reports(PoolEventListener listener) =>
        string.Join(" | ", listener.PayloadsOf("SlowWorkItem").Select(p => $"{p[3]} after {p[4]} ms"));
}
