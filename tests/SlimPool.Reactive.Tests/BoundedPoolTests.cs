using System.Reactive.Concurrency;
using System.Reactive.Linq;
using SlimPool.Tests.Infrastructure;

namespace SlimPool.Reactive.Tests;

/// <summary>
/// A bounded pool that is full only delays timed actions: nobody waits on a timer, so a due action is queued past the
/// bound, as the pool's own continuations are, and never counted as refused.
/// </summary>
public sealed class BoundedPoolTests
{
    [Theory]
    [InlineData(false)]
    [InlineData(true)]
    public void Schedule_DelayedComesDueWhileTheBoundedPoolIsFull_RunsAndIsNotRefused(bool onGroup)
    {
        using SlimThreadPool pool = FullPool(out ManualResetEventSlim release);
        using (release)
        {
            using SlimThreadPoolGroup group = pool.CreateGroup();
            SlimPoolScheduler scheduler = onGroup ? group.AsScheduler() : pool.AsScheduler();
            using var ran = new ManualResetEventSlim();

            using IDisposable handle = scheduler.Schedule(TimeSpan.FromMilliseconds(20), ran.Set);
            Thread.Sleep(100); // due while the pool is full
            Assert.False(pool.TryQueue(() => { })); // still full
            release.Set();

            Bounded.Wait(ran, "the delayed action");
            Assert.Equal(0, scheduler.RefusedCount);
        }
    }

    [Fact]
    public void SchedulePeriodic_BoundedPoolFullForAWhile_KeepsTicking()
    {
        using SlimThreadPool pool = FullPool(out ManualResetEventSlim release);
        using (release)
        {
            SlimPoolScheduler scheduler = pool.AsScheduler();
            int ticks = 0;

            using IDisposable subscription = Observable.Interval(TimeSpan.FromMilliseconds(10), scheduler).Subscribe(_ => Interlocked.Increment(ref ticks));
            Thread.Sleep(100); // ticks come due while the pool is full
            release.Set();

            Bounded.Until(() => Volatile.Read(ref ticks) >= 10, "ten ticks after the pool had room again");
            Assert.Equal(0, scheduler.RefusedCount);
        }
    }

    [Fact]
    public void SlowItem_ScheduledAction_NamedAsTheUsersDelegateNotTheSchedulersItem()
    {
        string name = $"rx-slow-{Guid.NewGuid():N}";
        using var listener = new PoolEventListener(name);
        using SlimThreadPool pool = TestPools.Create(1, o => o.SlowItemThreshold = TimeSpan.FromMilliseconds(20), name);
        using var release = new ManualResetEventSlim();

        using IDisposable handle = pool.AsScheduler().Schedule(() => WaitForRelease(release));
        Bounded.Until(() => pool.SlowWorkItemCount == 1, "the action to be reported");
        release.Set();
        Bounded.Wait(pool.WaitForIdleAsync(), "the action to return");
        Thread.Sleep(5); // the event is written after the count

        object?[] payload = Assert.Single(listener.PayloadsOf("SlowWorkItem"));
        Assert.Contains(nameof(SlowItem_ScheduledAction_NamedAsTheUsersDelegateNotTheSchedulersItem), (string)payload[3]!, StringComparison.Ordinal);
    }

    private static void WaitForRelease(ManualResetEventSlim release) => release.Wait(Bounded.Timeout);

    // One worker, one slot: the worker blocks in an item until released, and one more item fills the queue.
    private static SlimThreadPool FullPool(out ManualResetEventSlim release)
    {
        SlimThreadPool pool = TestPools.Create(1, o => { o.MaxWorkers = 1; o.BoundedCapacity = 1; });
        var gate = new ManualResetEventSlim();
        using var started = new ManualResetEventSlim();
        pool.Queue(() =>
        {
            started.Set();
            gate.Wait(Bounded.Timeout);
        });
        Bounded.Wait(started, "the worker to hold the blocking item");
        Assert.True(pool.TryQueue(() => { }));
        release = gate;
        return pool;
    }
}
