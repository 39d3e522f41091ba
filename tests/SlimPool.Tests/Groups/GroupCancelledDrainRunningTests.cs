using SlimPool.Tests.Infrastructure;

namespace SlimPool.Tests.Groups;

/// <summary>
/// A group's cancelled drain counts as running the items its turns are inside, not those a turn finished and has yet
/// to add to its count: it said 7 where one item ran (the five before it in the turn, the one running, and the first),
/// found by an adversarial review.
/// </summary>
public sealed class GroupCancelledDrainRunningTests
{
    public static TheoryData<WorkQueueKind, IdleWaitKind, bool> Cases() => TestPools.QueueAndIdleWaitsWith(false, true);

    [Theory]
    [MemberData(nameof(Cases))]
    public void GroupDrainCancelled_ItemsBlockedAfterOthersFinishedInTheirTurns_CountsTheBlockedOnesRunning(WorkQueueKind queue, IdleWaitKind idleWait, bool cancelMidway)
    {
        SlimThreadPool pool = TestPools.Create(queue, idleWait, workers: 3);
        using var hold = new ManualResetEventSlim();
        try
        {
            foreach (int width in new[] { 1, 2 })
            {
                SlimThreadPoolGroup group = pool.CreateGroup(new SlimGroupOptions { MaxConcurrency = width, MaxTurnDuration = Timeout.InfiniteTimeSpan });
                using var gate = new ManualResetEventSlim();
                using var blocked = new CountdownEvent(width);

                // Each turn runs its quick items, then blocks: they finish before the drain and are not yet counted.
                for (int i = 0; i < width; i++)
                {
                    group.Queue(() => gate.Wait(Bounded.Timeout));
                }

                for (int i = 0; i < 5 * width; i++)
                {
                    group.Queue(() => { });
                }

                for (int i = 0; i < width; i++)
                {
                    group.Queue(() =>
                    {
                        blocked.Signal();
                        hold.Wait(Bounded.Timeout);
                    });
                }

                gate.Set();
                Bounded.Wait(blocked, "the blocking items");
                for (int i = 0; i < 3; i++)
                {
                    group.Queue(() => { });
                }

                using var cancel = new CancellationTokenSource();
                if (!cancelMidway)
                {
                    cancel.Cancel();
                }

                Task<ShutdownResult> shutdown = group.ShutdownAsync(ShutdownMode.Drain, cancel.Token);
                if (cancelMidway)
                {
                    Thread.Sleep(20);
                    cancel.Cancel();
                }

                ShutdownResult result = Bounded.Result(shutdown, "the cancelled drain");
                Assert.Equal(ShutdownMode.Abandon, result.Mode);
                Assert.Equal(3, result.AbandonedCount);
                Assert.Equal(width, result.RunningWorkItemCount);
            }
        }
        finally
        {
            hold.Set();
            Bounded.Run(pool.Dispose, "the pool's dispose");
        }
    }
}
