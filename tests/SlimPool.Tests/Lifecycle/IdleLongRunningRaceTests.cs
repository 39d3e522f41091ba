using System.Diagnostics;
using SlimPool.Tests.Infrastructure;

namespace SlimPool.Tests.Lifecycle;

/// <summary>
/// The pool's idle test against a long-running task of its TaskScheduler that queues an item and returns: the item is
/// published before the task's count goes down, so a test that reads the count first sees either the task or its item.
/// </summary>
[Trait("Category", "Stress")]
public sealed class IdleLongRunningRaceTests
{
    [Fact]
    public void WaitForIdleAsync_LongRunningTaskQueuesAnItemThenReturns_CompletesOnlyAfterTheItem()
    {
        // Many workers make the look over their busy flags long: a test that read the queue, then the flags, then the
        // long-running count could see an empty queue, then the task's item queued and the task gone, and say idle
        // while the item waited (within a few rounds, before the count was read first).
        using SlimThreadPool pool = TestPools.Create(workers: 256);
        var clock = Stopwatch.StartNew();
        TimeSpan budget = TimeSpan.FromSeconds(StressSize.Pick(quick: 4, longRun: 60));
        int rounds = 0;
        while (clock.Elapsed < budget)
        {
            rounds++;
            int itemDone = 0;
            int spin = rounds % 113;
            Task longRunning = Task.Factory.StartNew(
                () =>
                {
                    Thread.SpinWait(spin);
                    pool.Queue(() =>
                    {
                        Thread.SpinWait(2_000);
                        Volatile.Write(ref itemDone, 1);
                    });
                },
                CancellationToken.None,
                TaskCreationOptions.LongRunning,
                pool.TaskScheduler);

            Bounded.Wait(pool.WaitForIdleAsync(), $"round {rounds}: the pool idle");
            Assert.True(Volatile.Read(ref itemDone) == 1, $"round {rounds}: WaitForIdleAsync completed while the long-running task's item was pending");
            Bounded.Wait(longRunning, $"round {rounds}: the long-running task");
        }
    }
}
