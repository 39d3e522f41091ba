using Xunit.Abstractions;

namespace SlimPool.Tests.Composition;

/// <summary>
/// The programs issue 26 reported, written out and run through the same runner and checks as the random ones: each
/// names the promise it shows broken, and prints the program as C# when it fails.
/// </summary>
[Trait("Category", "Composition")]
public sealed class CompositionReproTests(ITestOutputHelper output)
{
    private static readonly PoolSpec s_oneWorkStealingWorker = new(WorkQueueKind.WorkStealing, IdleWaitKind.SpinThenPark, 1, null, FlowExecutionContext: false);

    /// <summary>Defect 1: a refill of 15 into the worker's LIFO deque ran one thread's items as 0, 15, 14, ..., 1, 16, 31, ...</summary>
    [Fact]
    public void Queue_FortyItemsFromOneThreadBehindABusyWorkStealingWorker_StartInQueueOrder()
    {
        ScriptOp[] script = [ScriptOp.Queue(Plain(ItemKind.Block, 5)), .. Enumerable.Repeat(ScriptOp.Queue(Plain(ItemKind.Compute, 1)), 40)];
        AssertKept(new ComposeProgram(s_oneWorkStealingWorker, [], [script], 0, null), Promise.PoolOrder);
    }

    /// <summary>Defect 1: items moved into the worker's deque with a chain's head waited under the chain until it ended.</summary>
    [Fact]
    public void Queue_ItemsFromOutsideMovedWithASelfRequeuingChain_EachStartsWithinItsBound()
    {
        ScriptOp[] script =
        [
            ScriptOp.Queue(Plain(ItemKind.Block, 5)),
            .. Enumerable.Repeat(ScriptOp.Queue(Plain(ItemKind.Compute, 1)), 10),
            ScriptOp.Queue(Plain(ItemKind.Chain, 20_000)),
            .. Enumerable.Repeat(ScriptOp.Queue(Plain(ItemKind.Compute, 1)), 10),
        ];
        AssertKept(new ComposeProgram(s_oneWorkStealingWorker, [], [script], 0, null), Promise.StartBound);
    }

    /// <summary>Defect 3: after a drain cancelled 2 ms in, a serial group's backlog ran on after the result, on built-in pool threads.</summary>
    [Fact]
    public void ShutdownAsync_DrainCancelledWhileASerialGroupHoldsABacklog_NothingStartsAfterItReturns()
    {
        ScriptOp[] script = [.. Enumerable.Repeat(ScriptOp.Queue(Plain(ItemKind.Block, 2) with { Group = 0 }), 30)];
        var program = new ComposeProgram(
            s_oneWorkStealingWorker,
            [new GroupSpec(1, 32)],
            [script],
            ControllerDelayMs: 3,
            new ShutdownSpec(-1, ShutdownKind.CancelledDrain, CancelAfterMs: 2, ShutdownFrom.Controller));
        AssertKept(program, runs: 10, Promise.NothingAfterShutdown, Promise.OnPoolWorkers);
    }

    /// <summary>Defect 4: a drain of a serial group refused its async items' continuations, which ran on built-in threads, several at once.</summary>
    [Fact]
    public void GroupShutdownAsync_DrainWhileItsAsyncItemsAwait_ContinuationsRunInTheGroupOneAtATime()
    {
        ScriptOp[] script = [.. Enumerable.Repeat(ScriptOp.Queue(Plain(ItemKind.Async, 2) with { Group = 0 }), 40)];
        var program = new ComposeProgram(
            s_oneWorkStealingWorker with { Workers = 2 },
            [new GroupSpec(1, 32)],
            [script],
            ControllerDelayMs: 1,
            new ShutdownSpec(0, ShutdownKind.Drain, 0, ShutdownFrom.Controller));
        AssertKept(program, runs: 10, Promise.OnPoolWorkers, Promise.SerialNoOverlap);
    }

    /// <summary>Defect 5: B's item, queued under SuppressFlow to a group whose turn A's item took, saw A's AsyncLocal.</summary>
    [Fact]
    public void GroupQueue_UnderSuppressFlowAfterAnotherProducersItem_SeesNoProducersValue()
    {
        ScriptOp[] a = [ScriptOp.Queue(Plain(ItemKind.Block, 20) with { Group = 0 })];
        ScriptOp[] b = [ScriptOp.Pause(5), ScriptOp.Queue(Plain(ItemKind.Compute, 1) with { Group = 0, SuppressFlow = true })];
        var program = new ComposeProgram(s_oneWorkStealingWorker with { Workers = 2, FlowExecutionContext = true }, [new GroupSpec(1, 32)], [a, b], 0, null);
        AssertKept(program, runs: 3, Promise.OwnContext);
    }

    /// <summary>Defect 7: each High item counted twice (its ticket too), each Low item once per deferral.</summary>
    [Fact]
    public void Queue_HighAndLowItems_CompletedCountCountsEachItemOnce()
    {
        ScriptOp[] script =
        [
            .. Enumerable.Repeat(ScriptOp.Queue(Plain(ItemKind.Compute, 1) with { Priority = WorkItemPriority.High }), 200),
            .. Enumerable.Repeat(ScriptOp.Queue(Plain(ItemKind.Compute, 1)), 100),
            .. Enumerable.Repeat(ScriptOp.Queue(Plain(ItemKind.Compute, 1) with { Priority = WorkItemPriority.Low }), 10),
        ];
        AssertKept(new ComposeProgram(s_oneWorkStealingWorker with { Workers = 2 }, [], [script], 0, null), Promise.Counts);
    }

    /// <summary>
    /// Found by the composition hunt: a producer took a serial Low group's turn and was preempted before it published the
    /// turn; another producer's item, queued to the group before the pool's drain began, rode on that turn; the one
    /// worker found nothing queued and left, so the item ran on the built-in thread that finished the drain, or on the
    /// first producer's thread after the drain returned (11% to 27% of runs). A queue call now returns only once a turn
    /// that runs its item is published (GroupTurns, <see cref="Groups.UnpublishedTurnTests"/> for the held producer).
    /// </summary>
    [Fact]
    public void ShutdownAsync_DrainWhileAProducerHoldsAGroupsTurnUnpublished_ItemsQueuedBeforeRunOnTheWorkers()
    {
        var pool = new PoolSpec(WorkQueueKind.Locked, IdleWaitKind.AutoResetEvent, 1, null, FlowExecutionContext: true, ThreadHooks: true);
        GroupSpec[] groups =
        [
            new(1, 4, 30, WorkItemPriority.Low),
            new(3, 2, 1_000, WorkItemPriority.High),
            new(2, 32, -1, WorkItemPriority.Low),
        ];
        ScriptOp[] first =
        [
            ScriptOp.Queue(new ItemSpec(-1, ItemKind.CancelledWhileQueued, WorkItemPriority.Normal, QueueShape.Queue, SuppressFlow: false, 30)),
            ScriptOp.Queue(new ItemSpec(0, ItemKind.Send, WorkItemPriority.Normal, QueueShape.QueueWorkItem, SuppressFlow: false, 1)), // to g0's context
        ];
        ScriptOp[] second =
        [
            ScriptOp.Queue(new ItemSpec(0, ItemKind.Async, WorkItemPriority.Normal, QueueShape.Queue, SuppressFlow: true, 2)),
            ScriptOp.Queue(new ItemSpec(-1, ItemKind.Async, WorkItemPriority.Normal, QueueShape.Queue, SuppressFlow: true, 1)),
            ScriptOp.Queue(new ItemSpec(1, ItemKind.Block, WorkItemPriority.Normal, QueueShape.Queue, SuppressFlow: false, 1)),
            ScriptOp.Pause(0),
            ScriptOp.Queue(new ItemSpec(-1, ItemKind.Continuation, WorkItemPriority.Normal, QueueShape.TryQueueWorkItem, SuppressFlow: false, 10)),
        ];
        var program = new ComposeProgram(pool, groups, [first, second], ControllerDelayMs: 0, new ShutdownSpec(-1, ShutdownKind.Drain, 8, ShutdownFrom.Controller));
        AssertKept(program, runs: 100, Promise.OnPoolWorkers, Promise.NothingAfterShutdown);
    }

    /// <summary>
    /// A serial group abandoned while its async flows are between steps: a flow whose item runs as the abandon begins
    /// and then awaits <c>SwitchTo(alwaysYield: true)</c> is refused and ends at the await's
    /// <see cref="ObjectDisposedException"/> (off the pool, after its item); the rest come back in the result. Every flow
    /// must be accounted for: finished, handed back, or ended at a refused switch after the abandon began.
    /// </summary>
    [Fact]
    public void GroupShutdownAsync_AbandonWhileItsAsyncFlowsSwitch_EveryFlowIsAccountedFor()
    {
        ScriptOp[] script = [ScriptOp.Queue(Plain(ItemKind.Block, 2) with { Group = 0 }), .. Enumerable.Repeat(ScriptOp.Queue(Plain(ItemKind.Async, 3) with { Group = 0 }), 40)];
        var program = new ComposeProgram(
            s_oneWorkStealingWorker with { Workers = 2 },
            [new GroupSpec(1, 4)],
            [script],
            ControllerDelayMs: 3,
            new ShutdownSpec(0, ShutdownKind.Abandon, 0, ShutdownFrom.Controller));
        output.WriteLine(program.ToString());
        int endedAtSwitch = 0;
        for (int run = 0; run < 10; run++)
        {
            ProgramRun result = ProgramRun.Execute(program);
            IReadOnlyList<Violation> broken = [.. PromiseChecks.All(result).Where(v => v.Check is Promise.ExactlyOnce or Promise.AsyncHasAHome or Promise.NothingAfterShutdown or Promise.NoHang or Promise.ApiBehaves)];
            Assert.True(broken.Count == 0, $"run {run + 1} of 10: {string.Join(Environment.NewLine, broken)}");
            endedAtSwitch += result.Ledger.Items.Count(item => item.EndedAtRefusedSwitch);
        }

        output.WriteLine($"flows that ended at a refused switch, over 10 runs: {endedAtSwitch}");
    }

    private static ItemSpec Plain(ItemKind kind, int amount) => new(-1, kind, WorkItemPriority.Normal, QueueShape.Queue, SuppressFlow: false, amount);

    // Racing programs run several times: the first run that breaks a promise fails the test.
    private void AssertKept(ComposeProgram program, params string[] checks) => AssertKept(program, runs: 1, checks);

    private void AssertKept(ComposeProgram program, int runs, params string[] checks)
    {
        output.WriteLine(program.ToString());
        var scope = new ComposeScope("repro") { Checks = checks };
        for (int run = 0; run < runs; run++)
        {
            IReadOnlyList<Violation> broken = ComposeProperty.Run(program, scope);
            Assert.True(broken.Count == 0, $"run {run + 1} of {runs}: {broken.Count} promise(s) broken by{program}{string.Join(Environment.NewLine, broken)}");
        }
    }
}
