using System.Reactive.Concurrency;
using System.Reactive.PlatformServices;
using System.Reflection;
using SlimPool.Reactive.Tests.Infrastructure;
using SlimPool.Tests.Infrastructure;

namespace SlimPool.Reactive.Tests;

/// <summary>Rx's handling of a system clock change, on a scheduler whose pool has shut down.</summary>
[Collection(ClockChangeCollection.Name)]
public sealed class ClockChangeTests
{
    /// <summary>
    /// An absolute-time action whose Rx short-term carrier came due after the pool shut down is refused (counted) but
    /// stays in LocalScheduler's short-term queue, and keeps Rx's system-clock monitor running. When Rx then sees a
    /// system clock change (its PeriodicTimerSystemClockMonitor reports one whenever its 1 s tick is 100 ms late, e.g.
    /// on a loaded machine), it re-schedules the stranded item past due: SlimPoolScheduler.Schedule(TimeSpan.Zero) ->
    /// pool.Queue -> ObjectDisposedException, thrown on a thread-pool timer thread, so the process ends (seen in a plain
    /// `dotnet test` run of these review tests: "Test host process crashed : Unhandled exception.
    /// System.ObjectDisposedException ... at LocalScheduler.SystemClockChanged"). The remarks promise that a timer coming
    /// due after the pool stopped accepting "cannot throw to anyone: its action is dropped ... and is counted". The clock
    /// change is simulated by calling Rx's own handler (internal) by reflection, on this thread.
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

        MethodInfo onChanged = typeof(Scheduler).Assembly.GetType("System.Reactive.PlatformServices.SystemClock")!
            .GetMethod("OnSystemClockChanged", BindingFlags.Static | BindingFlags.NonPublic | BindingFlags.Public)!;
        Exception? thrown = Record.Exception(() => onChanged.Invoke(null, [null, new SystemClockChangedEventArgs()]));

        Assert.Null(thrown?.InnerException ?? thrown);
        Assert.Equal(0, Volatile.Read(ref ran));
    }
}
