using System.Reactive.Concurrency;
using Microsoft.Extensions.Time.Testing;
using SlimPool.Reactive.Tests.Infrastructure;
using SlimPool.Tests.Infrastructure;

namespace SlimPool.Reactive.Tests;

/// <summary>SchedulePeriodic: ticks never overlap, a late periodic catches up by one tick, state passes on.</summary>
public sealed class PeriodicTests
{
    public static TheoryData<PoolKind> Kinds => new() { PoolKind.Slim, PoolKind.Managed };

    [Theory]
    [MemberData(nameof(Kinds))]
    public void SchedulePeriodic_TicksLongerThanThePeriod_NeverOverlap(PoolKind kind)
    {
        using var target = TestTarget.Create(kind); // four workers (or the built-in pool's many) free to run ticks side by side
        int inside = 0;
        int overlaps = 0;
        int ticks = 0;

        using (target.Pool.AsScheduler().SchedulePeriodic(TimeSpan.FromMilliseconds(1), () =>
        {
            if (Interlocked.Increment(ref inside) != 1)
            {
                Interlocked.Increment(ref overlaps);
            }

            Thread.Sleep(5); // five periods
            Interlocked.Decrement(ref inside);
            Interlocked.Increment(ref ticks);
        }))
        {
            Bounded.Until(() => Volatile.Read(ref ticks) >= 20, "twenty ticks");
        }

        Assert.Equal(0, Volatile.Read(ref overlaps));
    }

    [Fact]
    public void SchedulePeriodic_TickRunsPastSeveralDueTimes_NextRunsOnceAtOnceWithoutBurst()
    {
        var time = new FakeTimeProvider();
        using SlimThreadPool pool = TestPools.Create(workers: 4);
        using var gate = new ManualResetEventSlim();
        int started = 0;

        using IDisposable periodic = pool.AsScheduler(time).SchedulePeriodic(TimeSpan.FromSeconds(1), () =>
        {
            if (Interlocked.Increment(ref started) == 1)
            {
                Bounded.Wait(gate, "the gate"); // the first tick runs five periods long
            }
        });

        time.Advance(TimeSpan.FromSeconds(1));
        Bounded.Until(() => Volatile.Read(ref started) == 1, "the first tick");
        time.Advance(TimeSpan.FromSeconds(5)); // due times 2..6 s pass while it runs
        Thread.Sleep(50);
        Assert.Equal(1, Volatile.Read(ref started));

        gate.Set();
        Bounded.Until(() => Volatile.Read(ref started) >= 2, "the late tick, at once");
        Bounded.Wait(pool.WaitForIdleAsync(), "the pool to idle");
        Assert.Equal(2, Volatile.Read(ref started)); // one catch-up tick, not five

        time.Advance(TimeSpan.FromSeconds(1)); // the schedule goes on from the late tick (6 s): next due at 7 s
        Bounded.Until(() => Volatile.Read(ref started) >= 3, "the tick after");
        Bounded.Wait(pool.WaitForIdleAsync(), "the pool to idle");
        Assert.Equal(3, Volatile.Read(ref started));
    }

    [Fact]
    public void SchedulePeriodic_State_PassesFromTickToTick()
    {
        var time = new FakeTimeProvider();
        using SlimThreadPool pool = TestPools.Create(workers: 4);
        var seen = new List<int>();

        using IDisposable periodic = pool.AsScheduler(time).SchedulePeriodic(0, TimeSpan.FromSeconds(1), state =>
        {
            lock (seen)
            {
                seen.Add(state);
            }

            return state + 1;
        });
        for (int i = 1; i <= 5; i++)
        {
            time.Advance(TimeSpan.FromSeconds(1));
            Bounded.Until(() => { lock (seen) { return seen.Count == i; } }, $"tick {i}");
            Bounded.Wait(pool.WaitForIdleAsync(), $"tick {i} to return");
        }

        Assert.Equal([0, 1, 2, 3, 4], seen);
    }

    [Fact]
    public void SchedulePeriodic_ActionThrows_StopsAndReportsToThePool()
    {
        var time = new FakeTimeProvider();
        var reported = new List<Exception>();
        using SlimThreadPool pool = TestPools.Create(workers: 2, options => options.UnhandledException = e =>
        {
            lock (reported)
            {
                reported.Add(e);
            }
        });
        int ticks = 0;

        using IDisposable periodic = pool.AsScheduler(time).SchedulePeriodic(TimeSpan.FromSeconds(1), () =>
        {
            Interlocked.Increment(ref ticks);
            throw new InvalidOperationException("tick failed");
        });
        time.Advance(TimeSpan.FromSeconds(1));
        Bounded.Until(() => { lock (reported) { return reported.Count == 1; } }, "the tick's exception");
        time.Advance(TimeSpan.FromSeconds(5));
        Bounded.Wait(pool.WaitForIdleAsync(), "the pool to idle");

        Assert.Equal(1, Volatile.Read(ref ticks));
        Assert.Equal("tick failed", Assert.IsType<InvalidOperationException>(Assert.Single(reported)).Message);
    }

    [Fact]
    public void SchedulePeriodic_ZeroPeriod_RunsTicksOneAfterAnotherOnThePool()
    {
        using var target = TestTarget.Create(PoolKind.Slim);
        int inside = 0;
        int overlaps = 0;
        int offPool = 0;
        int ticks = 0;

        using (target.Pool.AsScheduler().SchedulePeriodic(TimeSpan.Zero, () =>
        {
            if (Interlocked.Increment(ref inside) != 1)
            {
                Interlocked.Increment(ref overlaps);
            }

            if (!target.IsOnPool())
            {
                Interlocked.Increment(ref offPool);
            }

            Interlocked.Decrement(ref inside);
            Interlocked.Increment(ref ticks);
        }))
        {
            Bounded.Until(() => Volatile.Read(ref ticks) >= 10_000, "ten thousand ticks");
        }

        Assert.Equal(0, Volatile.Read(ref overlaps));
        Assert.Equal(0, Volatile.Read(ref offPool));
    }

    [Fact]
    public void SchedulePeriodic_NegativePeriod_ThrowsArgumentOutOfRange()
    {
        using var pool = new ManagedThreadPool();

        Assert.Throws<ArgumentOutOfRangeException>(() => pool.AsScheduler().SchedulePeriodic(0, TimeSpan.FromTicks(-1), s => s));
    }

    private static readonly AsyncLocal<string?> s_who = new();

    [Fact]
    public void SchedulePeriodic_LateTicksOnAPoolThatFlowsContext_EveryTickRunsInTheCallersContext()
    {
        // A late tick queues the next itself, on a worker, inside its own context: the next must not see what it set.
        using SlimThreadPool pool = TestPools.Create(2, o => o.FlowExecutionContext = true);
        var seen = new System.Collections.Concurrent.ConcurrentQueue<string?>();
        s_who.Value = "caller";
        using (pool.AsScheduler().SchedulePeriodic(TimeSpan.FromMilliseconds(2), () =>
        {
            seen.Enqueue(s_who.Value);
            s_who.Value = "tick";
            Thread.Sleep(5); // late: the next tick is due when this one returns
        }))
        {
            Bounded.Until(() => seen.Count >= 10, "ten ticks");
        }

        s_who.Value = null;
        Assert.All(seen, who => Assert.Equal("caller", who));
    }
}
