using System.Reactive.Concurrency;
using System.Reactive.Linq;
using SlimPool.Reactive.Tests.Infrastructure;
using SlimPool.Tests.Infrastructure;

namespace SlimPool.Reactive.Tests;

public sealed class ObserveOnTests
{
    public static TheoryData<PoolKind> Kinds => new() { PoolKind.Slim, PoolKind.SerialGroup, PoolKind.Managed };

    [Theory]
    [MemberData(nameof(Kinds))]
    public void ObserveOn_LargeSequence_ArrivesInOrderOnPoolThreads(PoolKind kind)
    {
        const int Count = 100_000;
        using var target = TestTarget.Create(kind);
        var received = new List<int>(Count);
        int offPool = 0;
        using var done = new ManualResetEventSlim();

        using IDisposable subscription = Observable.Range(0, Count)
            .ObserveOn(target.Pool.AsScheduler())
            .Subscribe(
                value =>
                {
                    if (!target.IsOnPool())
                    {
                        Interlocked.Increment(ref offPool);
                    }

                    received.Add(value); // ObserveOn calls the observer one at a time
                },
                done.Set);

        Bounded.Wait(done, "the sequence to complete");
        Assert.Equal(0, Volatile.Read(ref offPool));
        Assert.Equal(Enumerable.Range(0, Count), received);
    }

    [Fact]
    public void ObserveOn_ManyProducerThreads_EachProducersOrderKept()
    {
        const int Producers = 4;
        const int PerProducer = 20_000;
        using var target = TestTarget.Create(PoolKind.Slim);
        var last = new int[Producers];
        Array.Fill(last, -1);
        int outOfOrder = 0;
        using var done = new CountdownEvent(Producers * PerProducer);
        using var subject = new System.Reactive.Subjects.Subject<(int Producer, int Value)>();
        using IDisposable subscription = Observable.Synchronize(subject)
            .ObserveOn(target.Pool.AsScheduler())
            .Subscribe(item =>
            {
                if (item.Value != last[item.Producer] + 1)
                {
                    outOfOrder++;
                }

                last[item.Producer] = item.Value;
                done.Signal();
            });

        Parallel.For(0, Producers, new ParallelOptions { MaxDegreeOfParallelism = Producers }, producer =>
        {
            for (int i = 0; i < PerProducer; i++)
            {
                subject.OnNext((producer, i));
            }
        });

        Bounded.Wait(done, "every item to arrive");
        Assert.Equal(0, outOfOrder);
    }

    [Fact]
    public void AsLongRunning_Scheduler_IsNullSoObserveOnCannotTakeAThread()
    {
        using var target = TestTarget.Create(PoolKind.Slim);
        SlimPoolScheduler scheduler = target.Pool.AsScheduler();

        Assert.Null(scheduler.AsLongRunning());
        Assert.Same(scheduler, scheduler.AsPeriodic());
        Assert.Same(scheduler, scheduler.AsStopwatchProvider());
    }

    // Why the scheduler exists: Rx's TaskPoolScheduler over the pool's own TaskScheduler is long-running, so ObserveOn
    // loops on a dedicated LongRunning thread instead of the pool's workers. If Rx ever stops doing that, this fails and
    // the guide's claim needs revisiting.
    [Fact]
    public void ObserveOn_TaskPoolSchedulerOverPoolTaskScheduler_RunsOffThePool()
    {
        using var target = TestTarget.Create(PoolKind.Slim);
        var scheduler = new TaskPoolScheduler(new TaskFactory(target.Pool.TaskScheduler));
        int onPool = 0;
        using var done = new ManualResetEventSlim();

        using IDisposable subscription = Observable.Range(0, 100)
            .ObserveOn(scheduler)
            .Subscribe(
                _ =>
                {
                    if (target.IsOnPool())
                    {
                        onPool++;
                    }
                },
                done.Set);

        Bounded.Wait(done, "the sequence to complete");
        Assert.NotNull(scheduler.AsLongRunning());
        Assert.Equal(0, onPool);
    }
}
