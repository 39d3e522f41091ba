using SlimPool.Scheduling;

namespace SlimPool.Tests.Scheduling;

/// <summary>
/// The starvation guard's decision at a period's end with items waiting (<see cref="StarvationGuard.AddsSpare"/>), row
/// by row: blocked workers get a spare, runnable ones (computing, or waiting for a CPU) at most
/// <see cref="StarvationGuard.ComputeBoundSpares"/> in all.
/// </summary>
public sealed class StarvationGuardDecisionTests
{
    [Theory]
    //            completed allBusy sampled blocked live workers cores  spare
    [InlineData(false, true, 2, 2, 2, 2, 2, true)]    // no progress, both blocked: a hang
    [InlineData(false, true, 2, 1, 2, 2, 2, true)]    // no progress, half blocked
    [InlineData(false, true, 4, 4, 40, 2, 2, true)]   // blocked: growth goes on however many spares there are
    [InlineData(false, true, 1, 0, 1, 1, 1, true)]    // no progress, runnable: the first compute-bound spare
    [InlineData(false, true, 2, 0, 2, 1, 1, false)]   // ... and no second (a quota-starved worker and its spare)
    [InlineData(false, true, 8, 0, 9, 8, 8, false)]   // eight runnable workers and a spare: nothing more
    [InlineData(false, true, 8, 3, 9, 8, 8, false)]   // fewer than half blocked, bound reached
    [InlineData(false, false, 0, 0, 2, 2, 2, true)]   // nothing could be read: fire, as without clocks
    [InlineData(true, true, 2, 2, 2, 2, 2, true)]     // items complete, both workers blocked (sleeping items)
    [InlineData(true, true, 7, 7, 7, 2, 2, true)]     // ... and the spares block too: growth goes on
    [InlineData(true, true, 2, 1, 2, 2, 2, false)]    // half blocked, half computing: not mostly blocked
    [InlineData(true, true, 8, 2, 8, 8, 8, false)]    // two of eight misread as blocked: nothing
    [InlineData(true, true, 8, 0, 8, 8, 8, false)]    // eight computing on fewer cores than reported: nothing
    [InlineData(true, false, 2, 2, 2, 2, 2, false)]   // a worker went idle in the period: the pool kept up
    [InlineData(true, true, 4, 3, 4, 4, 1, false)]    // a 1-CPU quota with one worker runnable: the quota is in use
    [InlineData(true, true, 4, 4, 4, 4, 1, true)]     // ... with none runnable: a spare
    public void AddsSpare_WithClocks_FollowsTheRules(
        bool completed, bool allBusy, int sampled, int blocked, int live, int workers, int cores, bool expected) =>
        Assert.Equal(expected, StarvationGuard.AddsSpare(completed, allBusy, new WorkerPeriod(sampled, blocked), processIdle: false, live, workers, cores));

    [Theory]
    [InlineData(false, false, false, true)]  // no progress: always
    [InlineData(true, true, true, true)]     // every worker busy, the process under a quarter of the cores
    [InlineData(true, true, false, false)]   // every worker busy, the cores busy
    [InlineData(true, false, true, false)]   // a worker idled
    public void AddsSpare_WithoutClocks_FallsBackToTheProcessCpuTime(bool completed, bool allBusy, bool processIdle, bool expected) =>
        Assert.Equal(expected, StarvationGuard.AddsSpare(completed, allBusy, WorkerPeriod.Unknown, processIdle, live: 50, workerCount: 2, cores: 2));
}
