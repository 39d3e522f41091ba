using System.Reactive.Concurrency;
using SlimPool.Tests.Infrastructure;

namespace SlimPool.Reactive.Tests;

/// <summary>A slow timed action is reported by the pool's slow-item watch under its own name (guarantee 29).</summary>
public sealed class TimedActionNamingTests
{
    private static IDisposable SlowAction(IScheduler scheduler, ManualResetEventSlim done)
    {
        Thread.Sleep(250);
        done.Set();
        return System.Reactive.Disposables.Disposable.Empty;
    }

    // Guarantee 29: a slow Rx action is named as itself, not as the scheduler's machinery. An absolute-time action run inline in
    // LocalScheduler's carrier item was reported under that carrier's state; it is an item of its own.
    [Theory]
    [InlineData(false)]
    [InlineData(true)]
    public void SlowTimedAction_ReportedUnderItsOwnName(bool absolute)
    {
        string name = $"slow-{Guid.NewGuid():N}";
        using var listener = new PoolEventListener(name);
        using SlimThreadPool pool = TestPools.Create(1, o => o.SlowItemThreshold = TimeSpan.FromMilliseconds(40), name);
        var scheduler = pool.AsScheduler();
        using var done = new ManualResetEventSlim();
        if (absolute)
        {
            scheduler.Schedule(done, scheduler.Now + TimeSpan.FromMilliseconds(20), SlowAction);
        }
        else
        {
            scheduler.Schedule(done, TimeSpan.FromMilliseconds(20), SlowAction);
        }

        Bounded.Wait(done, "the slow action");
        Bounded.Until(() => pool.SlowWorkItemCount == 1, "the report");
        Thread.Sleep(100);
        object?[] slow = Assert.Single(listener.PayloadsOf("SlowWorkItem"));
        Assert.Equal($"{typeof(TimedActionNamingTests).FullName}.{nameof(SlowAction)}", slow[3]);
    }
}
