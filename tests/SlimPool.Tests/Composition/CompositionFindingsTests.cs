using Xunit.Abstractions;

namespace SlimPool.Tests.Composition;

/// <summary>
/// Defects the composition test found beyond those issue 26 lists, each as the smallest program that shows it, run through
/// the same runner and checks. They fail before and after the fixes; racing ones run a few times.
/// </summary>
[Trait("Category", "Composition")]
public sealed class CompositionFindingsTests(ITestOutputHelper output)
{
    private static readonly PoolSpec s_oneWorker = new(WorkQueueKind.Locked, IdleWaitKind.AutoResetEvent, 1, null, FlowExecutionContext: false);

    /// <summary>
    /// ShutdownAsync(Abandon) sets the abandon flag before Begin; the one worker, between two steps of a chain, sees it,
    /// exits and completes the stopped signal, so Begin's FinishWhenStoppedAsync finishes the shutdown inline and joins
    /// the starvation guard, which Begin stops only afterwards: the call never returns (and holds Begin's lock).
    /// </summary>
    [Fact]
    public void ShutdownAsync_AbandonWhileTheOnlyWorkerRunsASelfRequeuingChain_Returns()
    {
        var program = new ComposeProgram(
            s_oneWorker with { FlowExecutionContext = true },
            [],
            [[ScriptOp.Queue(new ItemSpec(-1, ItemKind.Chain, WorkItemPriority.Normal, QueueShape.TryQueue, SuppressFlow: false, 12_000))]],
            ControllerDelayMs: 17,
            new ShutdownSpec(-1, ShutdownKind.Abandon, 0, ShutdownFrom.Controller));
        AssertKeptInEachRun(program, runs: 30, Promise.NoHang);
    }

    /// <summary>
    /// An item queued with a cancelled token and handed back by an abandon is skipped when the caller runs it
    /// (<see cref="AbandonedWorkItem.Run"/>), and that skip is added to the pool's CancelledWorkItemCount, though the pool
    /// did not skip it (its CompletedWorkItemCount, which counts the pool's skips, does not count it).
    /// </summary>
    [Fact]
    public void CancelledWorkItemCount_CancelledItemHandedBackAndRunByTheCaller_CountsOnlyThePoolsSkips()
    {
        ScriptOp[] script =
        [
            ScriptOp.Queue(new ItemSpec(-1, ItemKind.Block, WorkItemPriority.Normal, QueueShape.Queue, SuppressFlow: false, 20)),
            ScriptOp.Queue(new ItemSpec(-1, ItemKind.Cancelled, WorkItemPriority.Normal, QueueShape.TryQueue, SuppressFlow: false, 1)),
            ScriptOp.ShutDown(new ShutdownSpec(-1, ShutdownKind.Abandon, 0, ShutdownFrom.Controller)),
        ];
        AssertKeptInEachRun(new ComposeProgram(s_oneWorker, [], [script], 0, null), runs: 1, Promise.Counts);
    }

    /// <summary>
    /// A task queued to a group as the pool's Dispose finishes is accepted and run by its producer after the last look; its
    /// await then posts to the group, which the pool now refuses, so the continuations run on the built-in pool after
    /// Dispose returned. (On the pool's own scheduler, pool.Run, the same await throws into Task.ThrowAsync: the process
    /// ends; the test's probe reports that as AsyncContinuationHasSomewhereToRun instead.)
    /// </summary>
    [Fact]
    public void Dispose_RacingAnAsyncItemQueuedToAGroup_NoContinuationStartsAfterItReturns()
    {
        ScriptOp[] script =
        [
            ScriptOp.Queue(new ItemSpec(0, ItemKind.Async, WorkItemPriority.Normal, QueueShape.Queue, SuppressFlow: false, 2)),
            ScriptOp.Queue(new ItemSpec(-1, ItemKind.Async, WorkItemPriority.Normal, QueueShape.Queue, SuppressFlow: false, 2)),
        ];
        var program = new ComposeProgram(
            s_oneWorker with { IdleWait = IdleWaitKind.SpinThenPark },
            [new GroupSpec(3, 2)],
            [script],
            ControllerDelayMs: 0,
            new ShutdownSpec(-1, ShutdownKind.Dispose, 0, ShutdownFrom.Controller));
        AssertKeptInEachRun(program, runs: 200, Promise.NothingAfterShutdown, Promise.AsyncHasAHome);
    }

    private void AssertKeptInEachRun(ComposeProgram program, int runs, params string[] checks)
    {
        output.WriteLine(program.ToString());
        var scope = new ComposeScope("finding") { Checks = checks };
        for (int run = 0; run < runs; run++)
        {
            IReadOnlyList<Violation> broken = ComposeProperty.Run(program, scope);
            Assert.True(broken.Count == 0, $"run {run + 1} of {runs}: {broken.Count} promise(s) broken by{program}{string.Join(Environment.NewLine, broken)}");
        }
    }
}
