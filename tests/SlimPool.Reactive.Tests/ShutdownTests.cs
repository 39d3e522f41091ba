using System.Reactive.Concurrency;
using System.Reactive.Linq;
using System.Reactive.Subjects;
using Microsoft.Extensions.Time.Testing;
using SlimPool.Reactive.Tests.Infrastructure;
using SlimPool.Tests.Infrastructure;

namespace SlimPool.Reactive.Tests;

/// <summary>
/// After the pool (or group) stops accepting work: what queues at once throws to the caller; a timer that comes due
/// drops its action and counts it.
/// </summary>
public sealed class ShutdownTests
{
    public static TheoryData<PoolKind> Kinds => new() { PoolKind.Slim, PoolKind.SerialGroup, PoolKind.Managed };

    [Theory]
    [MemberData(nameof(Kinds))]
    public void Schedule_PoolDisposed_ThrowsObjectDisposed(PoolKind kind)
    {
        using var target = TestTarget.Create(kind);
        SlimPoolScheduler scheduler = target.Pool.AsScheduler();
        target.Pool.Dispose();

        Assert.Throws<ObjectDisposedException>(() => scheduler.Schedule(() => { }));
        Assert.Throws<ObjectDisposedException>(() => scheduler.Schedule(TimeSpan.Zero, () => { }));
        Assert.Throws<ObjectDisposedException>(() => scheduler.SchedulePeriodic(0, TimeSpan.Zero, s => s));
    }

    [Theory]
    [MemberData(nameof(Kinds))]
    public void Schedule_DelayedPoolDisposedBeforeDue_IsDroppedAndCounted(PoolKind kind)
    {
        var time = new FakeTimeProvider();
        using var target = TestTarget.Create(kind);
        SlimPoolScheduler scheduler = target.Pool.AsScheduler(time);
        int ran = 0;

        using IDisposable handle = scheduler.Schedule(TimeSpan.FromSeconds(1), () => Interlocked.Increment(ref ran));
        target.Pool.Dispose();
        time.Advance(TimeSpan.FromSeconds(1)); // the fake clock fires the timer on this thread: refused before Advance returns

        Assert.Equal(1, scheduler.RefusedCount);
        Assert.Equal(0, Volatile.Read(ref ran));
    }

    [Theory]
    [MemberData(nameof(Kinds))]
    public void SchedulePeriodic_PoolDisposed_StopsAtTheFirstRefusal(PoolKind kind)
    {
        var time = new FakeTimeProvider();
        using var target = TestTarget.Create(kind);
        SlimPoolScheduler scheduler = target.Pool.AsScheduler(time);
        int ticks = 0;

        using IDisposable periodic = scheduler.SchedulePeriodic(TimeSpan.FromSeconds(1), () => Interlocked.Increment(ref ticks));
        time.Advance(TimeSpan.FromSeconds(1));
        Bounded.Until(() => Volatile.Read(ref ticks) == 1, "the first tick");
        target.Pool.Dispose(); // drains: the first tick has returned, and armed the timer, when this returns
        time.Advance(TimeSpan.FromSeconds(1));
        time.Advance(TimeSpan.FromSeconds(10));

        Assert.Equal(1, scheduler.RefusedCount);
        Assert.Equal(1, Volatile.Read(ref ticks));
    }

    [Fact]
    public void ObserveOn_PoolDisposed_ProducerSeesObjectDisposed()
    {
        using SlimThreadPool pool = TestPools.Create(workers: 2);
        using var subject = new Subject<int>();
        using IDisposable subscription = subject.ObserveOn(pool.AsScheduler()).Subscribe(_ => { });
        pool.Dispose();

        Assert.Throws<ObjectDisposedException>(() => subject.OnNext(1));
    }

    [Fact]
    public void Schedule_AcceptedBeforeShutdown_StillRunsAsThePoolDrains()
    {
        using SlimThreadPool pool = TestPools.Create(workers: 1);
        using var gate = new ManualResetEventSlim();
        pool.Queue(() => Bounded.Wait(gate, "the gate"));
        int ran = 0;

        using IDisposable handle = pool.AsScheduler().Schedule(() => Interlocked.Increment(ref ran));
        Task<ShutdownResult> shutdown = pool.ShutdownAsync(ShutdownMode.Drain);
        gate.Set();
        Bounded.Wait(shutdown, "the drain");

        Assert.Equal(1, Volatile.Read(ref ran));
    }

    [Theory]
    [InlineData(false, 0, 0)]
    [InlineData(false, 5, 8)]
    [InlineData(true, 0, 0)]
    [InlineData(true, 5, 8)]
    public void SchedulePeriodic_TicksAlwaysDue_TheDrainOrTheGroupsDisposeStillEnds(bool onGroup, int periodMs, int tickMs)
    {
        // A zero period, or a tick longer than its period, queues the next tick from the one that ends: refused once the
        // target begins to shut down, or the drain would run ticks for ever.
        SlimThreadPool pool = TestPools.Create(workers: 2);
        SlimThreadPoolGroup? group = onGroup ? pool.CreateGroup() : null;
        SlimPoolScheduler scheduler = ((IThreadPool?)group ?? pool).AsScheduler();
        int ticks = 0;
        using IDisposable periodic = scheduler.SchedulePeriodic(0, TimeSpan.FromMilliseconds(periodMs), n =>
        {
            Interlocked.Increment(ref ticks);
            Thread.Sleep(tickMs);
            return n + 1;
        });
        Bounded.Until(() => Volatile.Read(ref ticks) >= 3, "a few ticks");

        Bounded.Run(() => ((IDisposable?)group ?? pool).Dispose(), "the drain of the target while its periodic is always due");
        int after = Volatile.Read(ref ticks);
        Thread.Sleep(50);

        Assert.Equal(after, Volatile.Read(ref ticks)); // stopped
        Assert.Equal(1, scheduler.RefusedCount);
        pool.Dispose();
    }

    [Fact]
    public void ObserveOn_GroupDisposedWhileDelivering_DeliversEverythingAcceptedThenRefusesTheProducer()
    {
        // ObserveOn delivers one item an action and schedules the next from inside it: that recursion carries on items
        // OnNext already accepted, so the group's drain runs them all, and only then does OnNext throw.
        using SlimThreadPool pool = TestPools.Create(workers: 2);
        SlimThreadPoolGroup group = pool.CreateGroup();
        using var subject = new Subject<int>();
        int delivered = 0;
        using var first = new ManualResetEventSlim();
        using IDisposable subscription = subject.ObserveOn(group.AsScheduler()).Subscribe(_ =>
        {
            Interlocked.Increment(ref delivered);
            first.Set();
            Thread.Sleep(1);
        });
        for (int i = 0; i < 100; i++)
        {
            subject.OnNext(i);
        }

        Bounded.Wait(first, "the first delivery");
        Bounded.Run(group.Dispose, "the group's drain");

        Assert.Equal(100, Volatile.Read(ref delivered));
        Assert.Throws<ObjectDisposedException>(() => subject.OnNext(100));
    }
}
