using SlimPool.Tests.Infrastructure;

namespace SlimPool.Tests.Queueing;

/// <summary>
/// A producer waiting for a full pool's room is interrupted (the interrupt is meant for it: its Queue throws
/// ThreadInterruptedException), and the pool keeps its capacity: the waiter it left in the gate's line was handed the
/// next free slot, which nobody gave back, so the pool lost a place for good (capacity 2 came back as 1, every shape,
/// 4 of 4 runs; an adversarial review).
/// </summary>
public sealed class InterruptedProducerTests
{
    [Theory]
    [InlineData(0)] // pool.Queue
    [InlineData(1)] // pool.Queue with a token (AcquireWhenFull's new path)
    [InlineData(2)] // group.Queue (GroupTurns.TryReserveSlots with the group's Closing token)
    [InlineData(3)] // group.QueueBatch of two (the gatherers' path)
    public void Queue_ProducerInterruptedWhileWaitingForRoom_ThePoolKeepsItsCapacity(int shape)
    {
        const int Capacity = 2;
        SlimThreadPool pool = TestPools.Create(workers: 1, o => o.BoundedCapacity = Capacity);
        using var release = new ManualResetEventSlim();
        try
        {
            SlimThreadPoolGroup group = pool.CreateGroup();
            using var holding = new ManualResetEventSlim();
            pool.Queue(() =>
            {
                holding.Set();
                release.Wait(Bounded.Timeout);
            });
            Bounded.Wait(holding, "the item holding the worker");
            pool.Queue(() => { });
            pool.Queue(() => { }); // full

            Exception? thrown = null;
            using var cts = new CancellationTokenSource();
            var producer = new Thread(() =>
            {
                try
                {
                    switch (shape)
                    {
                        case 0: pool.Queue(() => { }); break;
                        case 1: pool.Queue(() => { }, cts.Token); break;
                        case 2: group.Queue(() => { }); break;
                        default: group.QueueBatch(_ => { }, new object?[2]); break;
                    }
                }
                catch (Exception exception)
                {
                    thrown = exception;
                }
            }) { IsBackground = true };
            producer.Start();
            Thread.Sleep(200);
            Assert.True(producer.IsAlive, "the producer found room");
            producer.Interrupt();
            Assert.True(producer.Join(Bounded.Timeout), "the interrupted producer");
            Assert.IsType<ThreadInterruptedException>(thrown);

            release.Set();
            Bounded.Wait(pool.WaitForIdleAsync(), "the pool to go idle");
            Thread.Sleep(100);

            // Idle, nothing queued: the whole capacity is free again.
            release.Reset();
            holding.Reset();
            pool.Queue(() =>
            {
                holding.Set();
                release.Wait(Bounded.Timeout);
            });
            Bounded.Wait(holding, "the item holding the worker again");
            int accepted = 0;
            while (accepted <= Capacity && pool.TryQueue(() => { }))
            {
                accepted++;
            }

            Assert.Equal(Capacity, accepted);
        }
        finally
        {
            release.Set();
            Bounded.Run(pool.Dispose, "the pool's dispose");
        }
    }
}
