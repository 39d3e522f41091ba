using SlimPool.Tests.Infrastructure;

namespace SlimPool.Tests.Queueing;

/// <summary>
/// A group's synchronous queue calls that wait for a full pool's room end when the group shuts down, as its
/// <c>QueueAsync</c> does: they waited for the pool's room, however long that took, on a group that would never accept.
/// </summary>
public sealed class GroupQueueWaitShutdownTests
{
    [Theory]
    [InlineData(0)] // Queue
    [InlineData(1)] // QueueBatch of one item: the waiters' line
    [InlineData(2)] // QueueBatch of two: the gatherers' lock
    public void GroupQueue_WaitingForRoomWhenTheGroupIsDisposed_ThrowsAtOnceAndNeverRuns(int batch)
    {
        SlimThreadPool pool = TestPools.Create(workers: 1, o => o.BoundedCapacity = 2);
        using var release = new ManualResetEventSlim();
        try
        {
            using var started = new ManualResetEventSlim();
            pool.Queue(() =>
            {
                started.Set();
                release.Wait(Bounded.Timeout);
            });
            Bounded.Wait(started, "the item holding the worker");
            pool.Queue(() => { });
            pool.Queue(() => { }); // the pool is full until the first item returns
            SlimThreadPoolGroup group = pool.CreateGroup();
            int ran = 0;
            Task producer = Task.Factory.StartNew(
                () =>
                {
                    if (batch == 0)
                    {
                        group.Queue(() => Interlocked.Increment(ref ran));
                    }
                    else
                    {
                        group.QueueBatch(_ => Interlocked.Increment(ref ran), new object?[batch]);
                    }
                },
                CancellationToken.None,
                TaskCreationOptions.LongRunning,
                TaskScheduler.Default);
            Thread.Sleep(100);
            Assert.False(producer.IsCompleted, "the producer found room");

            Bounded.Run(group.Dispose, "the group's dispose");
            bool ended = ((IAsyncResult)producer).AsyncWaitHandle.WaitOne(TimeSpan.FromSeconds(5));
            release.Set();
            Bounded.Wait(producer.ContinueWith(static _ => { }, TaskScheduler.Default), "the producer");
            Assert.True(ended, "the group's queue call still waited for the pool's room 5 s after the group was disposed");
            ObjectDisposedException exception = Assert.IsType<ObjectDisposedException>(producer.Exception?.InnerException);
            Assert.Contains(group.Name, exception.Message, StringComparison.Ordinal);
            Bounded.Wait(pool.WaitForIdleAsync(), "the pool to go idle");
            Assert.Equal(0, Volatile.Read(ref ran));

            // Every slot came back, those a batch gathered before its wait ended included: with the worker held again,
            // the pool takes two items and refuses a third.
            using var hold = new ManualResetEventSlim();
            using var holding = new ManualResetEventSlim();
            pool.Queue(() =>
            {
                holding.Set();
                hold.Wait(Bounded.Timeout);
            });
            Bounded.Wait(holding, "the item holding the worker again");
            Assert.True(pool.TryQueue(() => { }) && pool.TryQueue(() => { }), "a slot was left behind");
            Assert.False(pool.TryQueue(() => { }), "the bound held more than two");
            hold.Set();
        }
        finally
        {
            release.Set();
            Bounded.Run(pool.Dispose, "the pool's dispose");
        }
    }
}
