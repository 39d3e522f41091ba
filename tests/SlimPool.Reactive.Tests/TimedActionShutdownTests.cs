using System.Reactive.Concurrency;
using SlimPool.Tests.Infrastructure;

namespace SlimPool.Reactive.Tests;

/// <summary>
/// Timed actions that came due before a shutdown: a drain runs them, an abandon hands them back, whether their time was
/// relative or absolute, and whatever the context they carry (none included).
/// </summary>
public sealed class TimedActionShutdownTests
{
    /// <summary>
    /// Two timed actions come due (and are queued) before a drain begins, behind a blocked item: a relative-time one and
    /// an absolute-time one. A drain runs what was queued before it, so both should run, and RefusedCount ("came due after
    /// the pool stopped accepting") stays 0. With no context to flow (flow off here, the default; or a suppressed flow)
    /// the absolute-time action was a second hop queued from inside the first when it ran, during the drain, where
    /// TryEnqueueWhileOpen refused it: the action never ran and was counted refused (a regression of a fix, found by an
    /// adversarial review).
    /// </summary>
    [Theory]
    [InlineData(false)]
    [InlineData(true)]
    public async Task Drain_TimedActionsThatCameDueBeforeIt_BothRun(bool flow)
    {
        using SlimThreadPool pool = TestPools.Create(1, o => { o.FlowExecutionContext = flow; o.StarvationTimeout = Timeout.InfiniteTimeSpan; });
        var scheduler = pool.AsScheduler();
        using var go = new ManualResetEventSlim();
        Ran ran = BothDueBehindABlockedItem(pool, scheduler, go);

        Task<ShutdownResult> shutdown = pool.ShutdownAsync(ShutdownMode.Drain);
        go.Set();
        await shutdown.WaitAsync(Bounded.Timeout);

        Assert.Equal((1, 1, 0L), (Volatile.Read(ref ran.Relative), Volatile.Read(ref ran.Absolute), scheduler.RefusedCount));
    }

    /// <summary>
    /// The Abandon twin: both timed actions came due and were queued before the abandon, so both come back in
    /// AbandonedItems; running the handed-back items should run both actions. The absolute-time one's handed-back item was
    /// only a first hop before: run, it queued the action to the shut-down pool, which refused it (counted), so the
    /// action was lost although its item was accepted and handed back.
    /// </summary>
    [Fact]
    public async Task Abandon_HandedBackTimedActionsRunByTheCaller_BothRun()
    {
        using SlimThreadPool pool = TestPools.Create(1, o => o.StarvationTimeout = Timeout.InfiniteTimeSpan);
        var scheduler = pool.AsScheduler();
        using var go = new ManualResetEventSlim();
        Ran ran = BothDueBehindABlockedItem(pool, scheduler, go);

        Task<ShutdownResult> shutdown = pool.ShutdownAsync(ShutdownMode.Abandon);
        go.Set();
        ShutdownResult result = await shutdown.WaitAsync(Bounded.Timeout);
        foreach (AbandonedWorkItem back in result.AbandonedItems)
        {
            back.Run();
        }

        Assert.Equal((1, 1, 0L), (Volatile.Read(ref ran.Relative), Volatile.Read(ref ran.Absolute), scheduler.RefusedCount));
    }

    // The pool's one worker blocked until `go` (the callers turn the starvation guard off: under a loaded CI run its spare
    // ran both items before the check, 0 pending); then a relative-time and an absolute-time action, both come due (their
    // items wait behind the blocked one) before this returns.
    private static Ran BothDueBehindABlockedItem(SlimThreadPool pool, SlimPoolScheduler scheduler, ManualResetEventSlim go)
    {
        using var started = new ManualResetEventSlim();
        pool.Queue(() => { started.Set(); go.Wait(Bounded.Timeout); });
        Bounded.Wait(started, "the blocking item");
        var ran = new Ran();
        scheduler.Schedule(TimeSpan.FromMilliseconds(20), () => Interlocked.Increment(ref ran.Relative));
        scheduler.Schedule(scheduler.Now + TimeSpan.FromMilliseconds(20), () => Interlocked.Increment(ref ran.Absolute));
        // Both timers fire and their items wait behind the blocked one. A timer's callback runs on the built-in pool, which
        // a loaded CI run kept busy past a fixed 500 ms (one item pending of two): waited for, not slept for.
        Bounded.Until(() => pool.PendingWorkItemCount == 2, "both timed actions to be queued");
        return ran;
    }

    private sealed class Ran
    {
        public int Relative;
        public int Absolute;
    }
}
