using SlimPool.Tests.Infrastructure;
using Xunit.Abstractions;

namespace SlimPool.Tests.Reliability;

/// <summary>
/// A pool under a thread limit (a container's pids limit, <see cref="PidsCage"/>): a spare that cannot start gives its
/// slot back, and the pool goes on with the threads it has; blocking scopes and the starvation guard ask again, and a
/// shutdown neither ends early nor hangs for a thread that never ran. Linux as root with a cgroup v1 pids hierarchy;
/// elsewhere each test says it did not run.
/// </summary>
[Collection(RunsAloneCollection.Name)]
public sealed class ThreadLimitTests(ITestOutputHelper output)
{
    [Fact]
    public void BlockingScope_AfterAnEarlierScopesSpareFailedToStart_MakesUpTheWholeDeficit()
    {
        // Two workers: the first one's scope cannot start its spare (the limit), the limit lifts, and the second one's
        // scope started only its own spare: one worker unblocked of the two the pool keeps, for as long as both scopes
        // lasted (live 3, blocked 2). It now starts as many as it takes.
        using PidsCage? cage = PidsCage.TryCreate(out string reason);
        if (cage is null)
        {
            output.WriteLine($"NOT RUN: {reason}");
            return;
        }

        SlimThreadPool pool = cage.Create(o => o.WorkerCount = 2);
        try
        {
            cage.Close();
            using var release = new ManualResetEventSlim();
            using var inFirst = new ManualResetEventSlim();
            using var inSecond = new ManualResetEventSlim();
            using var goSecond = new ManualResetEventSlim();
            pool.Queue(() =>
            {
                using (pool.EnterBlocking())
                {
                    inFirst.Set();
                    release.Wait(Bounded.Timeout);
                }
            });
            pool.Queue(() =>
            {
                goSecond.Wait(Bounded.Timeout);
                using (pool.EnterBlocking())
                {
                    inSecond.Set();
                    release.Wait(Bounded.Timeout);
                }
            });
            Bounded.Wait(inFirst, "the first scope");
            int liveWhileCapped = pool.LiveWorkerCount;
            cage.Lift();
            goSecond.Set();
            Bounded.Wait(inSecond, "the second scope");
            int live = pool.LiveWorkerCount;
            int blocked = pool.BlockedWorkerCount;
            release.Set();

            output.WriteLine($"while capped: live {liveWhileCapped}; both scopes: live {live}, blocked {blocked}; failed starts {cage.Failures}");
            Assert.Equal(2, liveWhileCapped);
            Assert.True(cage.Failures > 0, "no thread start failed: the cap did not hold");
            Assert.True(live - blocked >= 2, $"{live - blocked} of WorkerCount 2 workers unblocked while both scopes last");
        }
        finally
        {
            Bounded.Run(pool.Dispose, "disposing the pool");
        }
    }

    [Fact]
    public void BlockingScope_RefusedAtTheCeilingWhileARetiredSpareExits_GetsItsSpareOnceTheSlotFrees()
    {
        // MaxWorkers 2: the one spare slot belongs to a spare that retired (no longer live) but is still in its exit
        // hook, so a scope opened meanwhile is refused a spare though one thread of the two runs. Its item waits for an
        // item queued behind it: nothing asked again once the slot freed, and with the guard off the pool stayed one
        // short for good. The slot's release now makes the deficit up.
        int exitHooks = 0;
        using var inExitHook = new ManualResetEventSlim();
        using var giveUp = new ManualResetEventSlim();
        SlimThreadPool pool = TestPools.Create(workers: 1, o =>
        {
            o.MaxWorkers = 2;
            o.StarvationTimeout = Timeout.InfiniteTimeSpan;
            o.SpareWorkerIdleTimeout = TimeSpan.FromMilliseconds(20);
            o.OnThreadExit = index =>
            {
                if (index >= 1 && Interlocked.Increment(ref exitHooks) == 1)
                {
                    inExitHook.Set();
                    Thread.Sleep(400);
                }
            };
        });
        try
        {
            using (var first = new ManualResetEventSlim())
            {
                pool.Queue(() => pool.RunBlocking(() => first.Wait(Bounded.Timeout))); // starts the spare
                Bounded.Until(() => pool.LiveWorkerCount == 2, "the first scope's spare");
                first.Set();
            }

            Bounded.Wait(inExitHook, "the spare to retire into its exit hook");
            using var behindRan = new ManualResetEventSlim();
            using var done = new ManualResetEventSlim();
            pool.Queue(() =>
            {
                using (pool.EnterBlocking())
                {
                    pool.Queue(behindRan.Set);
                    done.Set();
                    WaitHandle.WaitAny([behindRan.WaitHandle, giveUp.WaitHandle], Bounded.Timeout);
                }
            });
            Bounded.Wait(done, "the second scope");

            Assert.True(behindRan.Wait(TimeSpan.FromSeconds(2)), $"the item queued behind a blocked worker never ran (live {pool.LiveWorkerCount}, blocked {pool.BlockedWorkerCount})");
        }
        finally
        {
            giveUp.Set();
            Bounded.Run(pool.Dispose, "disposing the pool");
        }
    }

    [Fact]
    public void Dispose_WhileSparesFailToStartForABlockedItem_WaitsForItThenEnds()
    {
        // Item A waits, without a hint, for item B queued behind it on one worker; the guard's spares cannot start. The
        // drain must neither end while A runs nor hang once the limit lifts (a failed start is a spare that retired at
        // once: counted out of the live workers and the exit barrier).
        using PidsCage? cage = PidsCage.TryCreate(out string reason);
        if (cage is null)
        {
            output.WriteLine($"NOT RUN: {reason}");
            return;
        }

        SlimThreadPool pool = cage.Create(o =>
        {
            o.WorkerCount = 1;
            o.StarvationTimeout = TimeSpan.FromMilliseconds(20);
        });
        cage.Close();
        using var bRan = new ManualResetEventSlim();
        using var aStarted = new ManualResetEventSlim();
        int aDone = 0;
        pool.Queue(() =>
        {
            aStarted.Set();
            bRan.Wait(Bounded.Timeout);
            Volatile.Write(ref aDone, 1);
        });
        pool.Queue(() => bRan.Set());
        Bounded.Wait(aStarted, "item A to start");
        Thread.Sleep(200); // the guard's starts fail meanwhile
        using var disposed = new ManualResetEventSlim();
        var disposer = new Thread(() =>
        {
            pool.Dispose();
            disposed.Set();
        }) { IsBackground = true };
        disposer.Start();
        bool endedEarly = disposed.Wait(TimeSpan.FromMilliseconds(300));
        int minLive = pool.LiveWorkerCount;
        cage.Lift();
        Bounded.Wait(disposed, "the drain once the limit lifted");

        output.WriteLine($"ended early: {endedEarly}; live while capped: {minLive}; failed starts: {cage.Failures}");
        Assert.True(cage.Failures > 0, "no thread start failed: the cap did not hold");
        Assert.False(endedEarly, "the drain ended while item A still ran");
        Assert.True(minLive >= 1, $"the live count read {minLive} while a worker ran item A");
        Assert.Equal(1, Volatile.Read(ref aDone));
        Assert.True(bRan.IsSet);
        Assert.Equal(0, pool.LiveWorkerCount);
    }
}
