using System.Diagnostics;
using SlimPool.Tests.Infrastructure;

namespace SlimPool.Tests.Groups;

/// <summary>
/// The group's drained signal where its two finished counts change at once: the abandon's sweep counts items not run
/// while the group's turn counts the items it ran. Each side changes its own count, then reads the other's, so one of
/// them sees both and signals.
/// </summary>
[Trait("Category", "Stress")]
public sealed class GroupDrainRaceTests
{
    [Fact]
    public void GroupShutdownAsyncAbandon_RacingItsTurnEmptyingTheQueue_AlwaysCompletes()
    {
        // A batch of 64, then the abandon a few hundred nanoseconds later: the turn runs items from the front while the
        // sweep hands them back from where the turn is, so the last item of one side and the last of the other end
        // together. Before the fix, the sweep read the ran count before it counted its own item: both sides missed the
        // other's last change, nothing signalled, and the shutdown never completed (within about 50,000 groups here).
        using SlimThreadPool pool = TestPools.Create(workers: 2);
        var states = new object?[64];
        var options = new SlimGroupOptions { MaxItemsPerTurn = 1_000 };
        var clock = Stopwatch.StartNew();
        TimeSpan budget = TimeSpan.FromSeconds(StressSize.Pick(quick: 8, longRun: 120));
        int groups = 0;
        while (clock.Elapsed < budget)
        {
            groups++;
            SlimThreadPoolGroup group = pool.CreateGroup(options);
            group.QueueBatch(static _ => { }, states);
            Thread.SpinWait(groups % 64 * 4);
            Task<ShutdownResult> shutdown = group.ShutdownAsync(ShutdownMode.Abandon);
            ShutdownResult result = Bounded.Result(shutdown, $"group {groups}'s abandon ({group.CompletedWorkItemCount} of its items ran)");
            Assert.Equal(states.Length, group.CompletedWorkItemCount + result.AbandonedItems.Count);
        }
    }
}
