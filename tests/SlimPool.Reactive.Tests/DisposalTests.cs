using System.Reactive.Concurrency;
using System.Reactive.Disposables;
using System.Reactive.Linq;
using Microsoft.Extensions.Time.Testing;
using SlimPool.Reactive.Tests.Infrastructure;
using SlimPool.Tests.Infrastructure;

namespace SlimPool.Reactive.Tests;

/// <summary>Disposing what the scheduler returned cancels: before the action starts it never runs, a periodic stops.</summary>
public sealed class DisposalTests
{
    public static TheoryData<PoolKind> Kinds => new() { PoolKind.Slim, PoolKind.SerialGroup, PoolKind.Managed };

    [Fact]
    public void Schedule_DisposedWhileQueued_NeverRuns()
    {
        using SlimThreadPool pool = TestPools.Create(workers: 1);
        SlimPoolScheduler scheduler = pool.AsScheduler();
        using var gate = new ManualResetEventSlim();
        pool.Queue(() => Bounded.Wait(gate, "the gate")); // the only worker waits, so what follows stays queued
        int cancelled = 0;
        int kept = 0;

        IDisposable handle = scheduler.Schedule(() => Interlocked.Increment(ref cancelled));
        using IDisposable other = scheduler.Schedule(() => Interlocked.Increment(ref kept));
        handle.Dispose();
        gate.Set();
        Bounded.Wait(pool.WaitForIdleAsync(), "the pool to idle");

        Assert.Equal(1, Volatile.Read(ref kept));
        Assert.Equal(0, Volatile.Read(ref cancelled));
    }

    [Theory]
    [MemberData(nameof(Kinds))]
    public void Schedule_DelayedDisposedBeforeDue_NeverRuns(PoolKind kind)
    {
        using var target = TestTarget.Create(kind);
        SlimPoolScheduler scheduler = target.Pool.AsScheduler();
        int cancelled = 0;
        using var control = new ManualResetEventSlim();

        IDisposable handle = scheduler.Schedule(TimeSpan.FromMilliseconds(50), () => Interlocked.Increment(ref cancelled));
        using IDisposable later = scheduler.Schedule(TimeSpan.FromMilliseconds(300), control.Set);
        handle.Dispose();

        Bounded.Wait(control, "the action due after the cancelled one");
        Assert.Equal(0, Volatile.Read(ref cancelled));
    }

    [Fact]
    public void Schedule_DelayedDisposedBeforeDueOnManualClock_NeverRunsNorCountsAsRefused()
    {
        var time = new FakeTimeProvider();
        using SlimThreadPool pool = TestPools.Create(workers: 2);
        SlimPoolScheduler scheduler = pool.AsScheduler(time);
        int ran = 0;

        IDisposable handle = scheduler.Schedule(TimeSpan.FromSeconds(1), () => Interlocked.Increment(ref ran));
        handle.Dispose();
        time.Advance(TimeSpan.FromSeconds(2));
        Bounded.Wait(pool.WaitForIdleAsync(), "the pool to idle");

        Assert.Equal(0, Volatile.Read(ref ran));
        Assert.Equal(0, scheduler.RefusedCount);
    }

    [Fact]
    public void Schedule_DisposedAfterTheActionRan_DisposesWhatItReturned()
    {
        using SlimThreadPool pool = TestPools.Create(workers: 2);
        SlimPoolScheduler scheduler = pool.AsScheduler();
        var returned = new BooleanDisposable();
        using var ran = new ManualResetEventSlim();

        IDisposable handle = scheduler.Schedule(0, (_, _) =>
        {
            ran.Set();
            return returned;
        });
        Bounded.Wait(ran, "the action");
        Bounded.Wait(pool.WaitForIdleAsync(), "the action to return");
        Assert.False(returned.IsDisposed);
        handle.Dispose();

        Assert.True(returned.IsDisposed);
    }

    [Fact]
    public void Interval_SubscriptionDisposedOnManualClock_StopsTicking()
    {
        var time = new FakeTimeProvider();
        using SlimThreadPool pool = TestPools.Create(workers: 2);
        int ticks = 0;

        IDisposable subscription = Observable.Interval(TimeSpan.FromSeconds(1), pool.AsScheduler(time)).Subscribe(_ => Interlocked.Increment(ref ticks));
        for (int i = 1; i <= 3; i++)
        {
            time.Advance(TimeSpan.FromSeconds(1));
            Bounded.Until(() => Volatile.Read(ref ticks) == i, $"tick {i}");
            Bounded.Wait(pool.WaitForIdleAsync(), $"tick {i} to return"); // the timer is armed again when a tick returns
        }

        subscription.Dispose();
        time.Advance(TimeSpan.FromSeconds(10));
        Bounded.Wait(pool.WaitForIdleAsync(), "the pool to idle");

        Assert.Equal(3, Volatile.Read(ref ticks));
    }

    [Theory]
    [MemberData(nameof(Kinds))]
    public void Interval_SubscriptionDisposed_StopsTicking(PoolKind kind)
    {
        using var target = TestTarget.Create(kind);
        int ticks = 0;

        IDisposable subscription = Observable.Interval(TimeSpan.FromMilliseconds(5), target.Pool.AsScheduler()).Subscribe(_ => Interlocked.Increment(ref ticks));
        Bounded.Until(() => Volatile.Read(ref ticks) >= 3, "three ticks");
        subscription.Dispose();
        int atDispose = Volatile.Read(ref ticks);
        Thread.Sleep(200);

        // A tick already running when Dispose returned may still finish; none starts after.
        Assert.InRange(Volatile.Read(ref ticks), atDispose, atDispose + 1);
    }

    [Fact]
    public void Schedule_RecursiveLoopDisposed_StopsRecursing()
    {
        using SlimThreadPool pool = TestPools.Create(workers: 2);
        int iterations = 0;

        IDisposable loop = pool.AsScheduler().Schedule(recurse =>
        {
            Interlocked.Increment(ref iterations);
            recurse();
        });
        Bounded.Until(() => Volatile.Read(ref iterations) >= 1000, "the loop to go round");
        loop.Dispose();

        // Rx's recursion adds each next item to its group after scheduling it, so an iteration or two in flight as the
        // group is disposed may still run; then the loop is over: the pool idles (a live loop never lets it) and stays so.
        Bounded.Wait(pool.WaitForIdleAsync(), "the loop to stop and the pool to idle");
        int stopped = Volatile.Read(ref iterations);
        Thread.Sleep(100);

        Assert.Equal(stopped, Volatile.Read(ref iterations));
    }
}
