using SlimPool.Tests.Infrastructure;

namespace SlimPool.Tests.Reliability;

/// <summary>
/// The lost wake-up hunt, barrier-aligned: the only worker finishes an item and goes idle at the very moment
/// the test queues the next one. Each iteration must complete within a bounded wait: a lost wake-up strands
/// the item and fails the test. CI also runs these with the process pinned to one core
/// (<c>taskset -c 0</c>), where the worker never spins and every idle transition parks.
/// </summary>
[Trait("Category", "WakeRace")]
public sealed class WakeRaceTests
{
    public static TheoryData<WorkQueueKind, IdleWaitKind> Configurations()
    {
        var data = new TheoryData<WorkQueueKind, IdleWaitKind>();
        foreach (WorkQueueKind queue in Enum.GetValues<WorkQueueKind>())
        {
            foreach (IdleWaitKind idleWait in Enum.GetValues<IdleWaitKind>())
            {
                data.Add(queue, idleWait);
            }
        }

        return data;
    }

    [Theory]
    [MemberData(nameof(Configurations))]
    [Trait("Category", "Stress")]
    public void Queue_AsTheOnlyWorkerGoesIdle_EveryItemRuns(WorkQueueKind queue, IdleWaitKind idleWait)
    {
        int iterations = StressSize.Pick(quick: 10_000, longRun: 1_000_000);
        // The starvation guard off: it would rescue a stranded item after 50 ms and hide the lost wake-up.
        using var pool = new SlimThreadPool(new SlimThreadPoolOptions { WorkerCount = 1, Queue = queue, IdleWait = idleWait, StarvationTimeout = Timeout.InfiniteTimeSpan });
        using var aligned = new Barrier(2);
        using var ran = new ManualResetEventSlim(false);
        var random = new Random(7);
        Action align = () => aligned.SignalAndWait(Bounded.Timeout);
        Action signal = ran.Set;

        for (int i = 0; i < iterations; i++)
        {
            ran.Reset();
            pool.Queue(align);
            Assert.True(aligned.SignalAndWait(Bounded.Timeout), $"iteration {i}: the worker never reached the barrier");

            // The worker is leaving its item now and will look at the queue, spin, announce and park; sweep the
            // queueing point across that window.
            Thread.SpinWait(random.Next(0, 200));
            pool.Queue(signal);
            Assert.True(ran.Wait(Bounded.Timeout), $"iteration {i}: an item queued as the worker went idle never ran (lost wake-up)");
        }
    }
}
