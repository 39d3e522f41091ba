using SlimPool.Queues;
using SlimPool.Tests.Infrastructure;

namespace SlimPool.Tests.Queues;

/// <summary>
/// Which enqueues tell the pool they already ended with a full fence (<see cref="IFencedEnqueue"/>): the pool
/// skips its own fence on exactly those, so a queue that claims it wrongly could lose a wake-up.
/// </summary>
public sealed class FencedEnqueueTests
{
    [Fact]
    public void LockedWorkQueue_PublishesUnderALock_DoesNotClaimAFence()
    {
        // Its publication is a plain store inside the lock; releasing a lock is not a full fence.
        IWorkQueue queue = new LockedWorkQueue();

        Assert.IsNotAssignableFrom<IFencedEnqueue>(queue);
    }

    [Fact]
    public void EnqueueFenced_LockFreeQueueAcrossGrowth_ClaimsTheFenceAndTheEntryIsVisible()
    {
        IFencedEnqueue queue = new LockFreeWorkQueue();
        var work = (IWorkQueue)queue;
        for (int i = 0; i < 5_000; i++) // past several ring growths
        {
            Assert.True(queue.EnqueueFenced(WorkQueueContractTests.Entry(i)), $"enqueue {i} did not claim its fence");
            Assert.False(work.IsEmpty);
        }

        Assert.Equal(5_000, work.Count);
    }

    [Fact]
    public void EnqueueFenced_WorkStealingFromOutsideThePool_ClaimsTheSharedQueuesFence()
    {
        IFencedEnqueue queue = new WorkStealingWorkQueue();

        Assert.True(queue.EnqueueFenced(WorkQueueContractTests.Entry(1)));
        Assert.False(((IWorkQueue)queue).IsEmpty);
    }

    [Fact]
    public void EnqueueFenced_WorkStealingOnAnAttachedWorker_LeavesTheFenceToTheCaller()
    {
        var queue = new WorkStealingWorkQueue();
        (bool fenced, bool visible) = Bounded.Result(Task.Factory.StartNew(() =>
        {
            queue.AttachWorker(0);
            bool claimed = ((IFencedEnqueue)queue).EnqueueFenced(WorkQueueContractTests.Entry(1));
            bool seen = !queue.IsEmpty;
            Assert.True(queue.TryDequeue(out _));
            queue.DetachWorker(0);
            return (claimed, seen);
        }, TaskCreationOptions.LongRunning), "the worker thread");

        // The push onto the worker's own deque is plain stores: the pool must add its own fence.
        Assert.False(fenced);
        Assert.True(visible);
    }
}
