using System.Diagnostics;
using System.Reactive.Linq;
using System.Reactive.Subjects;
using System.Reactive.Threading.Tasks;
using Microsoft.Extensions.Time.Testing;
using SlimPool.Reactive.Tests.Infrastructure;
using SlimPool.Tests.Infrastructure;

namespace SlimPool.Reactive.Tests;

/// <summary>Rx's time operators on the scheduler: on the real clock for each kind of pool, and on a clock moved by hand.</summary>
public sealed class TimeOperatorTests
{
    public static TheoryData<PoolKind> Kinds => new() { PoolKind.Slim, PoolKind.SerialGroup, PoolKind.Managed };

    [Theory]
    [MemberData(nameof(Kinds))]
    public void Timer_RealClock_FiresOnceOnPoolNoSoonerThanDue(PoolKind kind)
    {
        var due = TimeSpan.FromMilliseconds(100);
        using var target = TestTarget.Create(kind);
        var stopwatch = Stopwatch.StartNew();

        (long Value, bool OnPool) fired = Bounded.Result(Observable.Timer(due, target.Pool.AsScheduler()).Select(v => (v, target.IsOnPool())).ToTask(), "the timer");

        Assert.Equal((0L, true), fired);
        // The system timer counts whole milliseconds on a coarser clock than Stopwatch: allow it one tick early.
        Assert.True(stopwatch.Elapsed >= due - TimeSpan.FromMilliseconds(16), $"fired after {stopwatch.Elapsed.TotalMilliseconds} ms, due at 100");
    }

    [Theory]
    [MemberData(nameof(Kinds))]
    public void Interval_RealClock_TicksInOrderOnPool(PoolKind kind)
    {
        using var target = TestTarget.Create(kind);

        IList<(long Tick, bool OnPool)> ticks = Bounded.Result(
            Observable.Interval(TimeSpan.FromMilliseconds(10), target.Pool.AsScheduler()).Take(10).Select(v => (v, target.IsOnPool())).ToList().ToTask(),
            "ten ticks");

        Assert.Equal(Enumerable.Range(0, 10).Select(i => (long)i), ticks.Select(t => t.Tick));
        Assert.All(ticks, t => Assert.True(t.OnPool));
    }

    [Theory]
    [MemberData(nameof(Kinds))]
    public void Delay_RealClock_KeepsOrder(PoolKind kind)
    {
        using var target = TestTarget.Create(kind);

        IList<int> values = Bounded.Result(
            Observable.Range(0, 1000).Delay(TimeSpan.FromMilliseconds(20), target.Pool.AsScheduler()).ToList().ToTask(),
            "the delayed sequence");

        Assert.Equal(Enumerable.Range(0, 1000), values);
    }

    [Fact]
    public void Throttle_ManualClock_EmitsOnlyTheLastOfABurst()
    {
        var time = new FakeTimeProvider();
        using var target = TestTarget.Create(PoolKind.Slim);
        var received = new List<int>();
        using var subject = new Subject<int>();
        using IDisposable subscription = subject.Throttle(TimeSpan.FromSeconds(1), target.Pool.AsScheduler(time)).Subscribe(v =>
        {
            lock (received)
            {
                received.Add(v);
            }
        });

        subject.OnNext(1);
        time.Advance(TimeSpan.FromMilliseconds(500));
        subject.OnNext(2);
        time.Advance(TimeSpan.FromMilliseconds(500)); // 1 s after 1, 0.5 s after 2: nothing yet
        subject.OnNext(3);
        time.Advance(TimeSpan.FromMilliseconds(999));
        Bounded.Wait(((SlimThreadPool)target.Pool).WaitForIdleAsync(), "the pool to idle");
        Assert.Empty(received);

        time.Advance(TimeSpan.FromMilliseconds(1));
        Bounded.Until(() => { lock (received) { return received.Count == 1; } }, "the throttled value");
        Bounded.Wait(((SlimThreadPool)target.Pool).WaitForIdleAsync(), "the pool to idle");
        Assert.Equal([3], received);
    }

    [Fact]
    public void Buffer_ManualClock_CutsAtEachPeriod()
    {
        var time = new FakeTimeProvider();
        using var target = TestTarget.Create(PoolKind.Slim);
        var buffers = new List<IList<int>>();
        using var subject = new Subject<int>();
        using IDisposable subscription = subject.Buffer(TimeSpan.FromSeconds(1), target.Pool.AsScheduler(time)).Subscribe(b =>
        {
            lock (buffers)
            {
                buffers.Add(b);
            }
        });

        int BufferCount()
        {
            lock (buffers)
            {
                return buffers.Count;
            }
        }

        // Each cut is a periodic tick, whose timer is armed again when the tick returns: the clock moves on only once the
        // pool is idle, or a move made while the tick is still returning would push its next due time on by as much.
        var pool = (SlimThreadPool)target.Pool;
        subject.OnNext(1);
        subject.OnNext(2);
        time.Advance(TimeSpan.FromSeconds(1));
        Bounded.Until(() => BufferCount() == 1, "the first buffer");
        Bounded.Wait(pool.WaitForIdleAsync(), "the first cut's tick to return");
        subject.OnNext(3);
        time.Advance(TimeSpan.FromSeconds(1));
        Bounded.Until(() => BufferCount() == 2, "the second buffer");
        Bounded.Wait(pool.WaitForIdleAsync(), "the second cut's tick to return");
        time.Advance(TimeSpan.FromSeconds(1));
        Bounded.Until(() => BufferCount() == 3, "the third, empty buffer");

        lock (buffers)
        {
            Assert.Equal([1, 2], buffers[0]);
            Assert.Equal([3], buffers[1]);
            Assert.Empty(buffers[2]);
        }
    }

    [Fact]
    public void Schedule_AbsoluteTimeOnManualClock_RunsWhenTheClockReachesIt()
    {
        var time = new FakeTimeProvider();
        using var target = TestTarget.Create(PoolKind.Slim);
        SlimPoolScheduler scheduler = target.Pool.AsScheduler(time);
        using var ran = new ManualResetEventSlim();

        using IDisposable handle = scheduler.Schedule(0, scheduler.Now.AddMinutes(5), (_, _) =>
        {
            ran.Set();
            return System.Reactive.Disposables.Disposable.Empty;
        });
        time.Advance(TimeSpan.FromMinutes(4));
        Bounded.Wait(((SlimThreadPool)target.Pool).WaitForIdleAsync(), "the pool to idle");
        Assert.False(ran.IsSet);

        time.Advance(TimeSpan.FromMinutes(1));
        Bounded.Wait(ran, "the action at its absolute time");
    }

    [Fact]
    public void StartStopwatch_ManualClock_MeasuresTheProvidersTime()
    {
        var time = new FakeTimeProvider();
        using var pool = new ManagedThreadPool();
        SlimPoolScheduler scheduler = pool.AsScheduler(time);

        var stopwatch = scheduler.StartStopwatch();
        time.Advance(TimeSpan.FromSeconds(7));

        Assert.Equal(TimeSpan.FromSeconds(7), stopwatch.Elapsed);
        Assert.Equal(time.GetUtcNow(), scheduler.Now);
    }

    private static readonly AsyncLocal<string?> s_subscriber = new();

    [Fact]
    public void TimerAtAbsoluteTimes_TwoSubscribersOnAPoolThatFlowsContext_EachActionRunsInItsSubscribersContext()
    {
        // Rx's queue for absolute times runs whichever item is due on a timer armed by another caller: each action must
        // still see its own subscriber's values.
        using SlimThreadPool pool = TestPools.Create(2, o => o.FlowExecutionContext = true);
        SlimPoolScheduler scheduler = pool.AsScheduler();
        int wrong = 0;
        for (int round = 0; round < 20; round++)
        {
            DateTimeOffset at = scheduler.Now + TimeSpan.FromMilliseconds(20);
            using var done = new CountdownEvent(2);
            var subscribers = new[] { ("A", at + TimeSpan.FromMilliseconds(1)), ("B", at) }.Select(s => new Thread(() =>
            {
                s_subscriber.Value = s.Item1;
                Observable.Timer(s.Item2, scheduler).Subscribe(_ =>
                {
                    if (s_subscriber.Value != s.Item1)
                    {
                        Interlocked.Increment(ref wrong);
                    }

                    done.Signal();
                });
            })).ToArray();
            Array.ForEach(subscribers, t => t.Start());
            Array.ForEach(subscribers, t => t.Join());
            Bounded.Wait(done, "both timers");
        }

        Assert.Equal(0, Volatile.Read(ref wrong));
    }
}
