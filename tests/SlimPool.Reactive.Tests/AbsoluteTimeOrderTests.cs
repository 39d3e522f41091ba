using System.Collections.Concurrent;
using System.Reactive.Concurrency;
using SlimPool.Reactive.Tests.Infrastructure;
using SlimPool.Tests.Infrastructure;

namespace SlimPool.Reactive.Tests;

/// <summary>On a serial group, absolute-time actions keep their due-time order among the group's other actions.</summary>
public sealed class AbsoluteTimeOrderTests
{
    /// <summary>
    /// An absolute-time action A comes due (the item of Rx's queue that found it due queued in the group) while the group
    /// is busy; an action B due later (immediate, or relative) is queued after. A runs inside that item, so first; queued
    /// from it as an item of its own, it went behind B (found by an adversarial review).
    /// </summary>
    [Theory]
    [InlineData(false)]
    [InlineData(true)]
    public async Task SerialGroup_AbsoluteDueBeforeALaterAction_RunsFirst(bool relative)
    {
        using var target = TestTarget.Create(PoolKind.SerialGroup);
        SlimPoolScheduler scheduler = target.Pool.AsScheduler();
        using var go = new ManualResetEventSlim();
        using var started = new ManualResetEventSlim();
        target.Pool.Queue(() => { started.Set(); go.Wait(Bounded.Timeout); });
        Bounded.Wait(started, "blocker");
        var order = new ConcurrentQueue<string>();
        using var done = new CountdownEvent(2);
        scheduler.Schedule(scheduler.Now + TimeSpan.FromMilliseconds(20), () => { order.Enqueue("A"); done.Signal(); });
        await Task.Delay(300); // A due, its carrier queued in the group
        if (relative)
        {
            scheduler.Schedule(TimeSpan.FromMilliseconds(10), () => { order.Enqueue("B"); done.Signal(); });
            await Task.Delay(200);
        }
        else
        {
            scheduler.Schedule(() => { order.Enqueue("B"); done.Signal(); });
        }

        go.Set();
        Bounded.Wait(done, "both");
        Assert.Equal("AB", string.Concat(order));
    }
}
