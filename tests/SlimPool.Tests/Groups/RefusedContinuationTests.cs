using SlimPool.Tests.Infrastructure;

namespace SlimPool.Tests.Groups;

/// <summary>
/// A serial group's continuation that arrives after an abandon began (the group's or its pool's) is refused and runs on
/// the built-in pool, but not beside the group's item the abandon let finish: it ran at once there, two steps of the
/// serial group at the same time (found by an adversarial review).
/// </summary>
public sealed class RefusedContinuationTests
{
    [Theory]
    [InlineData(false)]
    [InlineData(true)]
    public void SerialGroupAbandon_FlowResumesWhileAnItemStillRuns_ResumesOnlyAfterThatItem(bool poolAbandon)
    {
        SlimThreadPool pool = TestPools.Create(workers: 2);
        using var release = new ManualResetEventSlim();
        try
        {
            SlimThreadPoolGroup group = pool.CreateGroup(new SlimGroupOptions { MaxConcurrency = 1 });
            int inGroup = 0;
            int most = 0;
            void Enter() => Atomic.Max(ref most, Interlocked.Increment(ref inGroup));
            void Exit() => Interlocked.Decrement(ref inGroup);

            var resume = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
            using var firstStepDone = new ManualResetEventSlim();
            using var continued = new ManualResetEventSlim();
            Task flow = group.Run(async () =>
            {
                Enter();
                Exit();
                firstStepDone.Set();
                await resume.Task;
                Enter();
                Thread.Sleep(50);
                Exit();
                await Task.Yield(); // refused again: the rest of the flow stays one step at a time
                Enter();
                Exit();
                continued.Set();
            });
            Bounded.Wait(firstStepDone, "the flow's first step");

            using var blockerRunning = new ManualResetEventSlim();
            group.Queue(() =>
            {
                Enter();
                blockerRunning.Set();
                release.Wait(Bounded.Timeout);
                Exit();
            });
            Bounded.Wait(blockerRunning, "the group's blocking item");

            Task shutdown = poolAbandon ? pool.ShutdownAsync(ShutdownMode.Abandon) : group.ShutdownAsync(ShutdownMode.Abandon);
            resume.SetResult(); // posted now: refused, it waits for the blocking item
            Assert.False(continued.Wait(200), "the flow resumed while the group's item still ran");
            release.Set();
            Bounded.Wait(continued, "the flow's later steps");
            Bounded.Wait(shutdown, "the abandon");
            Bounded.Wait(flow, "the flow");
            Assert.Equal(1, Volatile.Read(ref most));
        }
        finally
        {
            release.Set();
            Bounded.Run(pool.Dispose, "the pool's dispose");
        }
    }

    [Fact]
    public void SerialGroupAbandon_ManyFlowsRefused_ResumeOneStepAtATime()
    {
        SlimThreadPool pool = TestPools.Create(workers: 2);
        try
        {
            SlimThreadPoolGroup group = pool.CreateGroup(new SlimGroupOptions { MaxConcurrency = 1 });
            int inGroup = 0;
            int most = 0;
            int steps = 0;
            var resume = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
            using var parked = new CountdownEvent(8);
            var flows = new List<Task>();
            for (int f = 0; f < 8; f++)
            {
                flows.Add(group.Run(async () =>
                {
                    parked.Signal();
                    await resume.Task;
                    for (int s = 0; s < 20; s++)
                    {
                        Atomic.Max(ref most, Interlocked.Increment(ref inGroup));
                        Thread.SpinWait(20_000);
                        Interlocked.Increment(ref steps);
                        Interlocked.Decrement(ref inGroup);
                        await Task.Yield();
                    }
                }));
            }

            Bounded.Wait(parked, "the flows' first steps");
            Bounded.Wait(group.ShutdownAsync(ShutdownMode.Abandon), "the group's abandon");
            resume.SetResult(); // every flow's continuation is refused
            Bounded.Wait(Task.WhenAll(flows), "the flows");
            Assert.Equal(8 * 20, Volatile.Read(ref steps));
            Assert.Equal(1, Volatile.Read(ref most));
        }
        finally
        {
            Bounded.Run(pool.Dispose, "the pool's dispose");
        }
    }

    [Fact]
    public void WideGroupAbandon_ItemWaitsForAContinuationRefusedAfterIt_TheContinuationRunsAtOnce()
    {
        // Before the abandon the group's other turn would run the continuation; past it, the continuation must not wait
        // for the item that waits for it (a serial group's would: there it could never have run beside the item).
        SlimThreadPool pool = TestPools.Create(workers: 2);
        using var started = new ManualResetEventSlim();
        using var continued = new ManualResetEventSlim();
        bool sawIt = false;
        try
        {
            SlimThreadPoolGroup group = pool.CreateGroup(new SlimGroupOptions { MaxConcurrency = 2 });
            group.Queue(() =>
            {
                started.Set();
                sawIt = continued.Wait(TimeSpan.FromSeconds(10));
            });
            Bounded.Wait(started, "the waiting item");
            Task shutdown = group.ShutdownAsync(ShutdownMode.Abandon);
            group.SynchronizationContext.Post(_ => continued.Set(), null);
            Bounded.Wait(shutdown, "the abandon");
        }
        finally
        {
            Bounded.Run(pool.Dispose, "the pool's dispose");
        }

        Assert.True(sawIt, "the refused continuation waited for the item waiting for it");
    }

    [Fact]
    public void SerialGroupAbandon_RefusedPostsRunBackToBack_SecondDoesNotSeeTheFirstsAsyncLocal()
    {
        var local = new AsyncLocal<string?>();
        string? seen = "not run";
        PostTwoRefusedCallbacks(
            () => local.Value = "left by the first callback",
            () => seen = local.Value);
        Assert.Null(seen); // it saw the first callback's value, before (a review)
    }

    [Fact]
    public void SerialGroupAbandon_RefusedPostsRunBackToBack_SecondRunsUnderTheGroupsContext()
    {
        SynchronizationContext? seen = null;
        SynchronizationContext groupContext = PostTwoRefusedCallbacks(
            () => SynchronizationContext.SetSynchronizationContext(new SynchronizationContext()),
            () => seen = SynchronizationContext.Current);
        Assert.Same(groupContext, seen); // it ran under the context the first callback set, before (a review)
    }

    // Posts two callbacks to a serial group's SynchronizationContext (under a suppressed flow: they carry no context of
    // the test's) after its abandon began while an item still runs, so that both are refused and run back to back on
    // one built-in thread once the item returns; returns the group's context.
    private static SynchronizationContext PostTwoRefusedCallbacks(Action first, Action second)
    {
        SlimThreadPool pool = TestPools.Create(workers: 2);
        using var release = new ManualResetEventSlim();
        try
        {
            SlimThreadPoolGroup group = pool.CreateGroup(new SlimGroupOptions { MaxConcurrency = 1 });
            using var running = new ManualResetEventSlim();
            group.Queue(() =>
            {
                running.Set();
                release.Wait(Bounded.Timeout);
            });
            Bounded.Wait(running, "the group's item");
            Task shutdown = group.ShutdownAsync(ShutdownMode.Abandon);

            using var secondRan = new ManualResetEventSlim();
            using (ExecutionContext.SuppressFlow())
            {
                group.SynchronizationContext.Post(_ => first(), null);
                group.SynchronizationContext.Post(_ =>
                {
                    second();
                    secondRan.Set();
                }, null);
            }

            release.Set();
            Bounded.Wait(secondRan, "the second refused callback");
            Bounded.Wait(shutdown, "the abandon");
            return group.SynchronizationContext;
        }
        finally
        {
            release.Set();
            Bounded.Run(pool.Dispose, "the pool's dispose");
        }
    }
}
