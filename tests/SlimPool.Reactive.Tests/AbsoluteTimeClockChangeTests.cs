using System.Reactive.Concurrency;
using System.Reactive.PlatformServices;
using System.Reflection;
using SlimPool.Reactive.Tests.Infrastructure;
using SlimPool.Tests.Infrastructure;

namespace SlimPool.Reactive.Tests;

/// <summary>
/// An absolute-time action across Rx's system clock changes (its queue re-plans on each): counted once when refused after
/// the pool's shutdown, and run by a drain that accepted it before the change. Alone: the notice reaches every scheduler.
/// </summary>
[Collection(ClockChangeCollection.Name)]
public sealed class AbsoluteTimeClockChangeTests
{
    private static void ClockChanged() =>
        typeof(Scheduler).Assembly.GetType("System.Reactive.PlatformServices.SystemClock")!
            .GetMethod("OnSystemClockChanged", BindingFlags.Static | BindingFlags.NonPublic | BindingFlags.Public)!
            .Invoke(null, [null, new SystemClockChangedEventArgs()]);

    /// <summary>
    /// An absolute-time action whose carrier (the item of Rx's queue) came due after the pool shut down stays in Rx's
    /// queue, which hands it back as due at a system clock change (Rx reports one whenever its 1 s tick is 100 ms late, on
    /// a loaded machine). That reached the pool's Queue, whose ObjectDisposedException on the timer thread ended the
    /// process (a crashed test host, before).
    /// </summary>
    [Fact]
    public async Task ClockChange_AfterShutdownWithAnAbsoluteActionStranded_DoesNotThrow()
    {
        SlimThreadPool pool = TestPools.Create(1);
        var scheduler = pool.AsScheduler();
        int ran = 0;
        scheduler.Schedule(scheduler.Now + TimeSpan.FromMilliseconds(50), () => Interlocked.Increment(ref ran));
        pool.Dispose();
        await Task.Delay(300); // the carrier came due after the shutdown: refused and counted

        Exception? thrown = Record.Exception(ClockChanged);

        Assert.Null(thrown?.InnerException ?? thrown);
        Assert.Equal(0, Volatile.Read(ref ran));
    }

    // RefusedCount: "how many timed actions came due after the pool stopped accepting work". One action, stranded in
    // LocalScheduler's short-term queue after the shutdown, was counted again at every system clock change (4 after three).
    [Fact]
    public async Task ClockChanges_OneAbsoluteActionRefusedAfterShutdown_CountedOnce()
    {
        SlimThreadPool pool = TestPools.Create(1);
        var scheduler = pool.AsScheduler();
        int ran = 0;
        scheduler.Schedule(scheduler.Now + TimeSpan.FromMilliseconds(50), () => Interlocked.Increment(ref ran));
        pool.Dispose();
        await Task.Delay(300);
        Assert.Equal(1, scheduler.RefusedCount);

        ClockChanged();
        ClockChanged();
        ClockChanged();

        Assert.Equal(0, Volatile.Read(ref ran));
        Assert.Equal(1, scheduler.RefusedCount);
    }

    // An absolute-time action came due and its carrier was queued (accepted) before a drain; a system clock change (Rx
    // reports one whenever its 1 s monitor tick is 100 ms late) then cancels the queued carrier and hands the item back
    // as due: refused as new work (the pool is draining), the drain never ran an action accepted before it.
    [Fact]
    public async Task Drain_ClockChangeAfterTheAbsoluteActionWasQueued_ActionStillRuns()
    {
        using SlimThreadPool pool = TestPools.Create(1);
        var scheduler = pool.AsScheduler();
        using var go = new ManualResetEventSlim();
        using var started = new ManualResetEventSlim();
        pool.Queue(() => { started.Set(); go.Wait(Bounded.Timeout); });
        Bounded.Wait(started, "the blocking item");
        int absolute = 0;
        scheduler.Schedule(scheduler.Now + TimeSpan.FromMilliseconds(20), () => Interlocked.Increment(ref absolute));
        await Task.Delay(300);
        Assert.Equal(1, pool.PendingWorkItemCount); // its carrier is queued behind the blocked item

        Task<ShutdownResult> shutdown = pool.ShutdownAsync(ShutdownMode.Drain);
        ClockChanged();
        go.Set();
        await shutdown.WaitAsync(Bounded.Timeout);

        Assert.Equal((1, 0L), (Volatile.Read(ref absolute), scheduler.RefusedCount));
    }
}
