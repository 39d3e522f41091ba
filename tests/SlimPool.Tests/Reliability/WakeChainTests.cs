using SlimPool.Tests.Infrastructure;

namespace SlimPool.Tests.Reliability;

/// <summary>Every queued item gets a worker while workers sleep, even when the wake-ups that were meant for it merged.</summary>
public sealed class WakeChainTests
{
    [Theory]
    [InlineData(IdleWaitKind.AutoResetEvent)]
    [InlineData(IdleWaitKind.SpinThenPark)]
    public void Queue_TwoItemsThatWaitForEachOtherIntoTwoSleepingWorkers_BothStart(IdleWaitKind idleWait)
    {
        // Two back-to-back pushes into a pool whose two workers sleep: with one shared auto-reset event, the two Sets
        // merge and wake one worker; if its item then blocks, the other item waits with a worker asleep. The guard is
        // off, so nothing else would rescue it.
        using SlimThreadPool pool = TestPools.Create(workers: 2, o =>
        {
            o.IdleWait = idleWait;
            o.Queue = WorkQueueKind.LockFree;
        });
        for (int round = 0; round < 30; round++)
        {
            Bounded.Wait(pool.WaitForIdleAsync(), "the pool to go idle");
            Thread.Sleep(5); // let both workers get to sleep
            using var both = new CountdownEvent(2);
            using var done = new CountdownEvent(2);
            for (int i = 0; i < 2; i++)
            {
                pool.Queue(() =>
                {
                    both.Signal();
                    if (both.Wait(TimeSpan.FromSeconds(5)))
                    {
                        done.Signal();
                    }
                });
            }

            Assert.True(done.Wait(TimeSpan.FromSeconds(20)), $"round {round}: only one of two items started while the other worker slept");
        }
    }
}
