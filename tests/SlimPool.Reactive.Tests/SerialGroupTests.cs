using System.Diagnostics;
using System.Reactive.Linq;
using System.Reactive.Subjects;
using SlimPool.Reactive.Tests.Infrastructure;
using SlimPool.Tests.Infrastructure;

namespace SlimPool.Reactive.Tests;

/// <summary>A serial group's scheduler keeps one observer of several sources serial, while the pool has four workers.</summary>
public sealed class SerialGroupTests
{
    // Two sources, one item each, each ObserveOn'd to its own drain: the observer waits up to a while for the other
    // to come in beside it. On the plain pool they do (which shows the check can fail); in a serial group they never do.
    [Theory]
    [InlineData(PoolKind.Slim, 2)]
    [InlineData(PoolKind.SerialGroup, 1)]
    public void ObserveOn_TwoSourcesOneObserver_OverlapOnlyOffASerialGroup(PoolKind kind, int expectedMaxInside)
    {
        using var target = TestTarget.Create(kind);
        SlimPoolScheduler scheduler = target.Pool.AsScheduler();
        int inside = 0;
        int maxInside = 0;
        using var done = new CountdownEvent(2);
        void OnNext(int _)
        {
            int now = Interlocked.Increment(ref inside);
            Atomic.Max(ref maxInside, now);
            var waited = Stopwatch.StartNew();
            while (Volatile.Read(ref maxInside) < 2 && waited.Elapsed < TimeSpan.FromMilliseconds(kind == PoolKind.Slim ? 30_000 : 300))
            {
                Thread.Sleep(1);
            }

            Interlocked.Decrement(ref inside);
            done.Signal();
        }

        using var first = new Subject<int>();
        using var second = new Subject<int>();
        using IDisposable a = first.ObserveOn(scheduler).Subscribe(OnNext);
        using IDisposable b = second.ObserveOn(scheduler).Subscribe(OnNext);
        first.OnNext(1);
        second.OnNext(2);

        Bounded.Wait(done, "both items");
        Assert.Equal(expectedMaxInside, Volatile.Read(ref maxInside));
    }

    [Fact]
    public void ObserveOn_SerialGroupManyProducers_ObserverNeverOverlapsAndSeesEveryItem()
    {
        const int Sources = 4;
        const int PerSource = 5_000;
        using var target = TestTarget.Create(PoolKind.SerialGroup);
        SlimPoolScheduler scheduler = target.Pool.AsScheduler();
        int inside = 0;
        int overlaps = 0;
        long sum = 0; // not interlocked: the group is what keeps it right
        using var done = new CountdownEvent(Sources * PerSource);
        var subjects = Enumerable.Range(0, Sources).Select(_ => new Subject<int>()).ToArray();
        var subscriptions = subjects.Select(s => s.ObserveOn(scheduler).Subscribe(value =>
        {
            if (Interlocked.Increment(ref inside) != 1)
            {
                Interlocked.Increment(ref overlaps);
            }

            sum += value;
            Thread.SpinWait(50);
            Interlocked.Decrement(ref inside);
            done.Signal();
        })).ToArray();

        try
        {
            Parallel.For(0, Sources, new ParallelOptions { MaxDegreeOfParallelism = Sources }, source =>
            {
                for (int i = 1; i <= PerSource; i++)
                {
                    subjects[source].OnNext(i);
                }
            });

            Bounded.Wait(done, "every item");
            Assert.Equal(0, Volatile.Read(ref overlaps));
            Assert.Equal(Sources * (long)PerSource * (PerSource + 1) / 2, Volatile.Read(ref sum));
        }
        finally
        {
            Array.ForEach(subscriptions, s => s.Dispose());
            Array.ForEach(subjects, s => s.Dispose());
        }
    }
}
