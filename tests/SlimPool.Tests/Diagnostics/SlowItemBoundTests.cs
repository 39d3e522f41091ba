using System.Diagnostics;
using SlimPool.Tests.Infrastructure;

namespace SlimPool.Tests.Diagnostics;

/// <summary>
/// The slow-item detector's bound: an item that runs 1.125 thresholds plus the watch's wake-up delays is reported.
/// Alone, so the watch thread gets a core when it wakes.
/// </summary>
[Collection(RunsAloneCollection.Name)]
public sealed class SlowItemBoundTests
{
    [Fact]
    public void SlowItem_EachOfTwentyItemsRunningOnePointFourThresholds_Reported()
    {
        // 56 ms items against a 40 ms threshold: the watch sees each within 5 ms of its start and looks again when it
        // reaches the threshold, leaving 11 ms for its wake-ups. A watch that only looked every quarter threshold
        // reported about half of them.
        TimeSpan threshold = TimeSpan.FromMilliseconds(40);
        TimeSpan run = TimeSpan.FromMilliseconds(56);
        using SlimThreadPool pool = TestPools.Create(1, o =>
        {
            o.MaxWorkers = 1;
            o.SlowItemThreshold = threshold;
        });
        const int Items = 20;
        for (int i = 0; i < Items; i++)
        {
            pool.Queue(() =>
            {
                long start = Stopwatch.GetTimestamp();
                while (Stopwatch.GetElapsedTime(start) < run)
                {
                    Thread.SpinWait(20);
                }
            });
            Bounded.Wait(pool.WaitForIdleAsync(), "the item");
            Thread.Sleep(i % 3); // starts at different offsets from the watch's looks
        }

        Assert.Equal(Items, pool.SlowWorkItemCount);
    }
}
