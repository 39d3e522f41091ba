using SlimPool.Tests.Infrastructure;
using Xunit.Abstractions;

namespace SlimPool.Tests.Composition;

/// <summary>
/// Random programs over the public API that combine the pool's features, each checked against the ledger's promises
/// (<see cref="PromiseChecks"/>). The first runs every feature; the others aim at one meeting of features each, with only
/// the promise at stake checked, so a failure names the defect. A failure prints the shrunk program as C# and a seed
/// (replay: <c>SLIMPOOL_COMPOSE_SEED=... dotnet test --filter ...</c>). <c>SLIMPOOL_STRESS=1</c> runs each 30 times longer,
/// <c>SLIMPOOL_COMPOSE_SECONDS=N</c> for N seconds each.
/// </summary>
[Trait("Category", "Stress")]
[Trait("Category", "Composition")]
public sealed class CompositionTests(ITestOutputHelper output)
{
    [Fact]
    public void Programs_EveryFeatureCombined_KeepEveryPromise() =>
        Sample(ComposeScope.Everything, quickSeconds: 8);

    /// <summary>Defect 1 of issue 26: a worker's batch from the shared queue buried under chains, and run in reversed batches.</summary>
    [Fact]
    public void Programs_WorkStealingWithSelfRequeuingChains_StartOutsideItemsInOrderAndBuryNone() =>
        Sample(ComposeScopes.WorkStealingChains, quickSeconds: 3);

    /// <summary>Defect 3 of issue 26: a cancelled drain's early result, and the groups' backlog running on after it.</summary>
    [Fact]
    public void Programs_DrainCancelledOverSerialGroups_StartNothingAfterItReturns() =>
        Sample(ComposeScopes.CancelledDrainOverGroups, quickSeconds: 3);

    /// <summary>Defect 4 of issue 26: continuations of a group's async items during a drain.</summary>
    [Fact]
    public void Programs_AsyncItemsInGroupsDuringADrain_ContinueInTheirGroupOnTheWorkers() =>
        Sample(ComposeScopes.AsyncGroupsDraining, quickSeconds: 3);

    /// <summary>Defect 5 of issue 26: a group's turn running one producer's item in another producer's context.</summary>
    [Fact]
    public void Programs_FlowingContextFromTwoProducersIntoGroups_EachItemSeesItsOwn() =>
        Sample(ComposeScopes.FlowAcrossProducers, quickSeconds: 3);

    /// <summary>Groups passing work to each other from inside their turns (an actor's answer), raced by shutdowns.</summary>
    [Fact]
    public void Programs_ChainsRelayedAcrossGroups_RunEachStepOnceWithinEachGroupsLimit() =>
        Sample(ComposeScopes.RelayChainsAcrossGroups, quickSeconds: 3);

    /// <summary>Defect 7 of issue 26: priority tickets and deferrals counted as items.</summary>
    [Fact]
    public void Programs_PriorityItems_CountEachItemOnce() =>
        Sample(ComposeScopes.PriorityCounts, quickSeconds: 3);

    /// <summary>Spares retiring while exit hooks block, shutdowns and the start hook's context (guarantees 9 and 18).</summary>
    [Fact]
    public void Programs_SparesRetiringUnderThreadHooksThatBlock_StartThreadsOnlyForBlockingAndPairEveryHook() =>
        Sample(ComposeScopes.SparesWithThreadHooks, quickSeconds: 3);

    /// <summary>A continuation queued by whoever completes its antecedent, in that one's context (guarantee 18).</summary>
    [Fact]
    public void Programs_ContinuationsCompletedInAnotherContext_EachSeesItsOwnProducersContext() =>
        Sample(ComposeScopes.ContinuationsCompletedElsewhere, quickSeconds: 3);

    /// <summary>Long-running tasks are the pool's work: counted, placed, waited for by its shutdowns and idle waits (guarantees 4, 4e, 19).</summary>
    [Fact]
    public void Programs_LongRunningTasksBesideShutdownsAndIdleWaits_RunOnceAndAreWaitedFor() =>
        Sample(ComposeScopes.LongRunningTasks, quickSeconds: 3);

    /// <summary>Groups whose turns wait in the priority lanes while the pool shuts down: the drain's workers wait for the lanes too.</summary>
    [Fact]
    public void Programs_PrioritisedGroupsDuringAShutdown_RunEveryAcceptedItemOnTheWorkers() =>
        Sample(ComposeScopes.PrioritisedGroupsShuttingDown, quickSeconds: 3);

    // SLIMPOOL_COMPOSE_SECONDS sets every property's time (a long hunt, or a replay of one seed with longer shrinking).
    private void Sample(ComposeScope scope, int quickSeconds) =>
        ComposeProperty.Sample(
            scope,
            seconds: int.TryParse(Environment.GetEnvironmentVariable("SLIMPOOL_COMPOSE_SECONDS"), out int seconds) && seconds > 0
                ? seconds
                : StressSize.Pick(quick: quickSeconds, longRun: quickSeconds * 30),
            output.WriteLine);
}
