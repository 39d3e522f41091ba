using SlimPool.Tests.Infrastructure;

namespace SlimPool.Tests.Groups;

/// <summary>Async flows in a serial group raced by the group's abandon or the pool's cancelled drain: no two steps at once, none after the shutdown completed.</summary>
public sealed class SerialGroupFlowsShutdownRaceTests
{
    // Flows in a serial group (Yield and SwitchTo) raced by the group's abandon or the pool's cancelled drain: no two
    // steps at once, on the pool or on the built-in pool, and after the shutdown's task completed at most one step a
    // flow off the built-in pool (one whose continuation raced the shutdown's start). Steps on the built-in pool are a
    // refused continuation's flow: they run once the group's running item has finished, one at a time
    // (RefusedContinuations); they may run after the shutdown (a CI run under load found 39 such steps after it: the
    // flows were still running when the drain's token cancelled it).
    [Theory]
    [InlineData(WorkQueueKind.WorkStealing, IdleWaitKind.SpinThenPark, false)]
    [InlineData(WorkQueueKind.WorkStealing, IdleWaitKind.SpinThenPark, true)]
    [InlineData(WorkQueueKind.LockFree, IdleWaitKind.SpinThenPark, false)]
    [InlineData(WorkQueueKind.Locked, IdleWaitKind.AutoResetEvent, true)]
    public void SerialGroupFlows_RacingAbandonOrCancelledDrain_NoOverlapNoStepAfterTheShutdown(WorkQueueKind queue, IdleWaitKind idle, bool poolDrain)
    {
        for (int round = 0; round < 40; round++)
        {
            SlimThreadPool pool = TestPools.Create(3, o => { o.Queue = queue; o.IdleWait = idle; });
            SlimThreadPoolGroup g = pool.CreateGroup(new SlimGroupOptions { MaxConcurrency = 1, MaxItemsPerTurn = 2 });
            int inGroup = 0, overlap = 0, shutDown = 0;
            var after = new int[6]; // by flow
            var flows = new List<Task>();
            for (int f = 0; f < 6; f++)
            {
                int flow = f;
                try
                {
                    flows.Add(g.Run(async () =>
                    {
                        for (int s = 0; s < 200; s++)
                        {
                            // A continuation posted after the abandon began is refused and runs on the built-in pool
                            // (guarantee 25), and the rest of its flow with it, still one step at a time.
                            bool onThePool = !Thread.CurrentThread.IsThreadPoolThread;
                            if (Interlocked.Increment(ref inGroup) != 1) { Interlocked.Increment(ref overlap); }
                            if (onThePool && Volatile.Read(ref shutDown) != 0) { Interlocked.Increment(ref after[flow]); }
                            Thread.SpinWait(50);
                            Interlocked.Decrement(ref inGroup);

                            if ((s & 1) == 0) { await Task.Yield(); } else { await g.SwitchTo(alwaysYield: true); }
                        }
                    }));
                }
                catch (ObjectDisposedException) { }
            }

            Thread.Sleep(round % 5);
            ShutdownResult result;
            if (poolDrain)
            {
                using var cts = new CancellationTokenSource(TimeSpan.FromMilliseconds(1));
                result = Bounded.Result(pool.ShutdownAsync(ShutdownMode.Drain, cts.Token), "pool drain");
            }
            else
            {
                result = Bounded.Result(g.ShutdownAsync(ShutdownMode.Abandon), "group abandon");
            }

            Volatile.Write(ref shutDown, 1);
            Thread.Sleep(20);
            Assert.True(overlap == 0, $"round {round}: {overlap} steps of the serial group overlapped");
                        // A step whose continuation raced the shutdown's start may run after an early result, on the thread finishing
            // the shutdown (guarantee 16's exception): one a flow at most, since that flow's next step is refused. Under a
            // loaded run two flows did so in one round.
            Assert.True(after.All(static n => n <= 1), $"round {round}: a flow started {after.Max()} steps on the pool after the shutdown returned");
            Bounded.Run(pool.Dispose, "dispose");
        }
    }
}
