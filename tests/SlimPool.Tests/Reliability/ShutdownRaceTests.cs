using SlimPool.Tests.Infrastructure;

namespace SlimPool.Tests.Reliability;

/// <summary>
/// Shutdown racing producers: every item a producer saw accepted runs exactly once or is handed back exactly
/// once; every item refused never runs. Rounds vary when the shutdown lands; SLIMPOOL_STRESS=1 runs many more.
/// </summary>
[Trait("Category", "Stress")]
public sealed class ShutdownRaceTests
{
    private static readonly CancellationTokenSource s_liveToken = new();

    [Theory]
    [InlineData(WorkQueueKind.WorkStealing, ShutdownMode.Drain)]
    [InlineData(WorkQueueKind.WorkStealing, ShutdownMode.Abandon)]
    [InlineData(WorkQueueKind.LockFree, ShutdownMode.Drain)]
    [InlineData(WorkQueueKind.LockFree, ShutdownMode.Abandon)]
    [InlineData(WorkQueueKind.Locked, ShutdownMode.Abandon)]
    public async Task ShutdownAsync_RacingProducers_AcceptedRunOrHandedBackOnceRefusedNever(WorkQueueKind queue, ShutdownMode mode)
    {
        int rounds = StressSize.Pick(quick: 15, longRun: 2_000);
        for (int round = 0; round < rounds; round++)
        {
            await RunRoundAsync(queue, mode, round, cancelMidway: false);
            await RunRoundAsync(queue, mode, round, cancelMidway: true);
        }
    }

    private static async Task RunRoundAsync(WorkQueueKind queue, ShutdownMode mode, int round, bool cancelMidway)
    {
        const int Producers = 2;
        const int PerProducer = 20_000;
        var runs = new int[Producers * PerProducer];
        var accepted = new bool[runs.Length];
        var pool = new SlimThreadPool(new SlimThreadPoolOptions
        {
            WorkerCount = 2,
            Queue = queue,
            StarvationTimeout = Timeout.InfiniteTimeSpan,
            Name = $"race {queue} {mode} {round}",
        });
        using var go = new ManualResetEventSlim();
        var producers = new Thread[Producers];
        for (int p = 0; p < Producers; p++)
        {
            int first = p * PerProducer;
            producers[p] = new Thread(() =>
            {
                go.Wait(Bounded.Timeout);
                for (int id = first; id < first + PerProducer; id++)
                {
                    // Alternate the overloads: plain, state, cancellable (with a live token).
                    accepted[id] = (id % 3) switch
                    {
                        0 => pool.TryQueue(static s => Interlocked.Increment(ref ((Counter)s!).Slot), new Counter(runs, id)),
                        1 => pool.TryQueue(new CountItem(runs, id)),
                        _ => pool.TryQueue(new CountItem(runs, id).Execute, s_liveToken.Token),
                    };
                }
            });
            producers[p].Start();
        }

        using var cancellation = new CancellationTokenSource();
        go.Set();
        Thread.SpinWait(Random.Shared.Next(0, 200_000)); // land the shutdown somewhere in the burst
        Task<ShutdownResult> shutdown = pool.ShutdownAsync(mode, cancelMidway ? cancellation.Token : CancellationToken.None);
        if (cancelMidway)
        {
            await cancellation.CancelAsync();
        }

        ShutdownResult result = await shutdown.WaitAsync(Bounded.Timeout);
        foreach (Thread producer in producers)
        {
            Assert.True(producer.Join(Bounded.Timeout), "a producer hung");
        }

        foreach (AbandonedWorkItem item in result.AbandonedItems)
        {
            item.Run();
        }

        // A cancelled shutdown returns without waiting for the items still running (and runs what slipped in after it
        // once the workers exit): wait for the workers before reading the ledger.
        Bounded.Run(pool.Dispose, "disposing the pool after the shutdown");

        if (result.Mode == ShutdownMode.Drain)
        {
            Assert.Empty(result.AbandonedItems);
        }

        for (int id = 0; id < runs.Length; id++)
        {
            int expected = accepted[id] ? 1 : 0;
            if (runs[id] != expected)
            {
                Assert.Fail($"{queue} {mode} round {round} (cancel midway: {cancelMidway}): item {id} was {(accepted[id] ? "accepted" : "refused")} and ran {runs[id]} times.");
            }
        }
    }

    private sealed class Counter(int[] runs, int id)
    {
        public ref int Slot => ref runs[id];
    }

    private sealed class CountItem(int[] runs, int id) : IWorkItem
    {
        public void Execute() => Interlocked.Increment(ref runs[id]);
    }
}
