using System.Collections.Concurrent;
using SlimPool.Tests.Infrastructure;

namespace SlimPool.Tests.Queueing;

/// <summary>
/// <c>Queue</c> into a full bounded pool keeps the item's other promises: a Low item queued from a worker waits behind
/// the items already waiting (it ran inline, ahead of them all), and an item's token ends its producer's wait for room.
/// Found by an adversarial review.
/// </summary>
public sealed class FullPoolQueueTests
{
    public static TheoryData<WorkQueueKind> Queues() => [WorkQueueKind.WorkStealing, WorkQueueKind.LockFree, WorkQueueKind.Locked];

    [Theory]
    [MemberData(nameof(Queues))]
    public void Queue_LowItemFromAWorkerOfAFullPool_StartsAfterTheNormalItemsWaiting(WorkQueueKind queue)
    {
        SlimThreadPool pool = TestPools.Create(queue, IdleWaitKind.SpinThenPark, workers: 1, o =>
        {
            o.BoundedCapacity = 2;
            o.LowPriorityMaxDelay = TimeSpan.FromSeconds(10);
        });
        var order = new ConcurrentQueue<string>();
        using var done = new CountdownEvent(3);
        int pendingWhenFull = -1;
        try
        {
            pool.Queue(() =>
            {
                pool.Queue(() => Record(order, "normal 1", done));
                pool.Queue(() => Record(order, "normal 2", done));
                pendingWhenFull = pool.PendingWorkItemCount;
                pool.Queue(() => Record(order, "low", done), WorkItemPriority.Low);
            });
            Bounded.Wait(done, "the three items");
        }
        finally
        {
            Bounded.Run(pool.Dispose, "the pool's dispose");
        }

        Assert.Equal(2, pendingWhenFull); // the pool was full when the Low item came
        string[] ran = order.ToArray();
        Assert.Equal("low", ran[^1]); // the two Normal items in either order: work stealing runs the last queued first
        Assert.Equal(["normal 1", "normal 2"], ran[..2].Order());
    }

    [Theory]
    [MemberData(nameof(Queues))]
    public void Queue_LowItemFromAWorkerOfAFullPool_StartsAfterTheHighItemWaiting(WorkQueueKind queue)
    {
        SlimThreadPool pool = TestPools.Create(queue, IdleWaitKind.SpinThenPark, workers: 1, o =>
        {
            o.BoundedCapacity = 1;
            o.LowPriorityMaxDelay = TimeSpan.FromSeconds(10);
        });
        var order = new ConcurrentQueue<string>();
        using var done = new CountdownEvent(2);
        try
        {
            pool.Queue(() =>
            {
                pool.Queue(() => Record(order, "high", done), WorkItemPriority.High); // the only slot
                pool.Queue(() => Record(order, "low", done), WorkItemPriority.Low);
            });
            Bounded.Wait(done, "both items");
        }
        finally
        {
            Bounded.Run(pool.Dispose, "the pool's dispose");
        }

        Assert.Equal(["high", "low"], order.ToArray());
    }

    [Fact]
    public void Queue_TokenCancelledWhileWaitingForRoom_ReturnsAndSkipsTheItem()
    {
        SlimThreadPool pool = TestPools.Create(workers: 1, o => o.BoundedCapacity = 1);
        int ran = 0;
        bool returned;
        try
        {
            using (var blocked = new BlockedWorkers(pool))
            {
                pool.Queue(() => { }); // the only slot
                using var cancel = new CancellationTokenSource();
                var producer = new Thread(() => pool.Queue(() => Interlocked.Increment(ref ran), cancel.Token)) { IsBackground = true };
                producer.Start();
                Thread.Sleep(100);
                Assert.True(producer.IsAlive, "the producer found room");
                cancel.Cancel();
                returned = producer.Join(TimeSpan.FromSeconds(5));
            }

            Bounded.Wait(pool.WaitForIdleAsync(), "the pool to go idle");
            Assert.Equal(1, pool.CancelledWorkItemCount);
        }
        finally
        {
            Bounded.Run(pool.Dispose, "the pool's dispose");
        }

        Assert.True(returned, "Queue kept waiting for room for an item its token had cancelled");
        Assert.Equal(0, Volatile.Read(ref ran));
    }

    private static void Record(ConcurrentQueue<string> order, string name, CountdownEvent done)
    {
        order.Enqueue(name);
        done.Signal();
    }
}
