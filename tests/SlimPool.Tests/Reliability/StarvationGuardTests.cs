using System.Diagnostics;
using SlimPool.Tests.Infrastructure;

namespace SlimPool.Tests.Reliability;

/// <summary>
/// When the guard adds a worker although items still complete: busy workers that are blocked get help, busy workers
/// that compute do not. The guard reads its workers' own CPU clocks (the process's CPU time where it has none), and
/// these tests spin and time, so they run alone.
/// </summary>
[Collection(RunsAloneCollection.Name)]
public sealed class StarvationGuardTests
{
    private static readonly TimeSpan s_period = TimeSpan.FromMilliseconds(30);

    public static TheoryData<WorkQueueKind, IdleWaitKind> Configurations() => TestPools.QueueAndIdleWaits();

    [Theory]
    [MemberData(nameof(Configurations))]
    public void StarvationGuard_ItemsBlockWhileOthersStillComplete_AddsWorkers(WorkQueueKind queue, IdleWaitKind idleWait)
    {
        // Two workers, every item sleeps 15 ms without a hint: an item completes every 7.5 ms, so no 30 ms period
        // passes without progress. Keyed to completions alone, the guard never fired here and the 160 items ran two
        // at a time (1.2 s); now a spare comes every period while every worker is busy and the cores sit idle.
        const int Items = 160;
        string name = $"guard-{Guid.NewGuid():N}";
        using var listener = new PoolEventListener(name);
        using SlimThreadPool pool = Pool(queue, idleWait, name: name);
        using var done = new CountdownEvent(Items);
        int running = 0;
        int peak = 0;
        for (int i = 0; i < Items; i++)
        {
            pool.Queue(() =>
            {
                int now = Interlocked.Increment(ref running);
                Atomic.Max(ref peak, now);
                Thread.Sleep(15);
                Interlocked.Decrement(ref running);
                done.Signal();
            });
        }

        Bounded.Wait(done, "the sleeping items");
        Assert.True(Volatile.Read(ref peak) >= 5, $"at most {peak} items ran at once: the guard added {peak - 2} workers for workers that slept");
        Assert.Contains(listener.PayloadsOf("StarvationGuardFired"), payload => payload[1] is true); // items completed
    }

    [Theory]
    [MemberData(nameof(Configurations))]
    public void StarvationGuard_WorkerStalledInALongCpuBoundItem_StartsNoSpareWhileTheCoresAreBusy(WorkQueueKind queue, IdleWaitKind idleWait)
    {
        // One worker spins 400 ms in one item (stalled, but on its core); the other runs 2 ms spinning items, so the
        // queue stays full and items complete. The cores are busy: a spare would only take turns on them. Without the
        // CPU test the guard would add one every 30 ms (up to the ceiling of 8); one spare is allowed for a period the
        // host's other tenants took.
        const int Items = 150;
        using SlimThreadPool pool = Pool(queue, idleWait);
        using var done = new CountdownEvent(Items + 1);
        using var longStarted = new ManualResetEventSlim();
        pool.Queue(() =>
        {
            longStarted.Set();
            Spin(TimeSpan.FromMilliseconds(400));
            done.Signal();
        });
        Bounded.Wait(longStarted, "the long item to start");
        for (int i = 0; i < Items; i++)
        {
            pool.Queue(() =>
            {
                Spin(TimeSpan.FromMilliseconds(2));
                done.Signal();
            });
        }

        Bounded.Wait(done, "the spinning items");
        Assert.True(pool.LiveWorkerCount <= 3, $"{pool.LiveWorkerCount} workers live: the guard added spares while both cores computed");
    }

    private static SlimThreadPool Pool(WorkQueueKind queue, IdleWaitKind idleWait, int workers = 2, string name = nameof(StarvationGuardTests)) =>
        new(new SlimThreadPoolOptions
        {
            Name = name,
            WorkerCount = workers,
            MaxWorkers = 8,
            Queue = queue,
            IdleWait = idleWait,
            StarvationTimeout = s_period,
        });

    private static void Spin(TimeSpan duration)
    {
        long start = Stopwatch.GetTimestamp();
        while (Stopwatch.GetElapsedTime(start) < duration)
        {
            Thread.SpinWait(20);
        }
    }
}
