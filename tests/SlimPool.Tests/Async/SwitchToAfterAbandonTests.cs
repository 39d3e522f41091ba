using SlimPool.Tests.Infrastructure;

namespace SlimPool.Tests.Async;

/// <summary><c>SwitchTo(alwaysYield: true)</c> awaited inside the target's item once the target's abandon began.</summary>
public sealed class SwitchToAfterAbandonTests
{
    // The target refuses the yield, so the rest of the method is not the target's item any more: it resumes after the
    // item, off the pool's workers (the built-in pool; for a group, RefusedContinuations), and the await throws as the
    // docs say, rather than going on inline as more of an item the shutdown counted as running, after the shutdown
    // returned (SerialGroupFlowsShutdownRaceTests saw two steps of one flow on a worker after a cancelled drain's result,
    // in 3 runs of 8 under load).
    [Theory]
    [InlineData(false)]
    [InlineData(true)]
    public void SwitchTo_AlwaysYieldInsideAnItemAfterItsTargetsAbandonBegan_ResumesOffTheWorkersAndThrows(bool inGroup)
    {
        using SlimThreadPool pool = TestPools.Create(2);
        SlimThreadPoolGroup group = pool.CreateGroup();
        using var inside = new ManualResetEventSlim();
        using var release = new ManualResetEventSlim();
        bool? resumedOnAWorker = null;
        Func<Func<Task>, Task> run = inGroup ? f => group.Run(f) : f => pool.Run(f);
        Task flow = run(async () =>
        {
            inside.Set();
            Bounded.Wait(release, "the release");
            try
            {
                await (inGroup ? group.SwitchTo(alwaysYield: true) : pool.SwitchTo(alwaysYield: true));
            }
            finally
            {
                resumedOnAWorker = pool.IsOwnWorker;
            }
        });

        Bounded.Wait(inside, "the item");
        Task<ShutdownResult> shutdown = inGroup ? group.ShutdownAsync(ShutdownMode.Abandon) : pool.ShutdownAsync(ShutdownMode.Abandon);
        release.Set();
        Bounded.Result(shutdown, "the abandon");
        Bounded.Until(() => flow.IsCompleted, "the flow");

        Assert.False(resumedOnAWorker, "the flow went on inline on the worker after the abandon");
        Assert.IsType<ObjectDisposedException>(flow.Exception?.InnerException);
    }
}
