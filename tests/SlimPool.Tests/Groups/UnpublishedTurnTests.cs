using SlimPool.Tests.Infrastructure;

namespace SlimPool.Tests.Groups;

/// <summary>
/// A group's item that rides on a turn another producer took but has not yet put on the pool: its queue call returns
/// only once that turn is where the pool's workers look, so a drain that begins after the call returned runs the item
/// on a worker, before the drain returns. The other producer is held inside its publish by the pool's queue
/// (<see cref="GatedQueue"/>), a preemption made to last.
/// </summary>
public sealed class UnpublishedTurnTests
{
    public enum Shape
    {
        Queue,
        QueueBatch,
        Post, // the group's SynchronizationContext: a continuation's path (TryAcceptContinuation)
    }

    public static TheoryData<Shape, WorkItemPriority> Shapes() => new()
    {
        { Shape.Queue, WorkItemPriority.Normal },
        { Shape.QueueBatch, WorkItemPriority.Normal },
        { Shape.Post, WorkItemPriority.Normal },
        { Shape.Queue, WorkItemPriority.High }, // the turn goes into a lane, its ticket into the held queue
    };

    [Theory]
    [MemberData(nameof(Shapes))]
    public void ShutdownAsyncDrain_BegunAfterAQueueCallOnAnotherProducersUnpublishedTurnReturned_RunsItsItemOnAWorker(Shape shape, WorkItemPriority priority)
    {
        var queue = new GatedQueue();
        using SlimThreadPool pool = queue.CreatePool();
        SlimThreadPoolGroup group = pool.CreateGroup(new SlimGroupOptions { Priority = priority });
        int aThread = 0, ranOn = 0;
        bool ranAfterDrain = false, drainReturned = false;
        queue.HoldNextEnqueue();
        var a = new Thread(() =>
        {
            aThread = Environment.CurrentManagedThreadId;
            group.Queue(() => { }); // takes the group's turn, then is held inside the pool's enqueue of it
        });
        a.Start();
        Bounded.Wait(queue.Held, "the first producer to be held publishing the group's turn");

        using var returned = new ManualResetEventSlim(false);
        void Item()
        {
            Volatile.Write(ref ranOn, Environment.CurrentManagedThreadId);
            Volatile.Write(ref ranAfterDrain, Volatile.Read(ref drainReturned));
        }

        var b = new Thread(() =>
        {
            switch (shape)
            {
                case Shape.Queue:
                    group.Queue(Item);
                    break;
                case Shape.QueueBatch:
                    group.QueueBatch(_ => Item(), [null]);
                    break;
                case Shape.Post:
                    group.SynchronizationContext.Post(_ => Item(), null);
                    break;
            }

            returned.Set();
        });
        b.Start();

        (Task<ShutdownResult> drain, _) = DrainAfterTheCall(pool, returned, TimeSpan.FromMilliseconds(200), queue.Release, done => Volatile.Write(ref drainReturned, done));
        Bounded.Result(drain, "the drain");
        Bounded.Run(() => Assert.True(a.Join(Bounded.Timeout) && b.Join(Bounded.Timeout)), "both producers");
        Bounded.Until(() => Volatile.Read(ref ranOn) != 0, "the second item to run");
        Assert.False(Volatile.Read(ref ranAfterDrain), "the item ran after the drain returned");
        Assert.NotEqual(aThread, Volatile.Read(ref ranOn));
        Assert.Equal(2, group.CompletedWorkItemCount);
    }

    /// <summary>
    /// Begins a drain only once a producer's call returned (<paramref name="returned"/>). A call that returned within
    /// <paramref name="early"/>, its item's turn still held unpublished, gets the drain begun with the publisher still
    /// held, released (<paramref name="release"/>) only once the drain returned or 3 s passed, and
    /// <paramref name="drainReturned"/> says which; otherwise the publisher is released first, then the drain begins
    /// once the call returns.
    /// </summary>
    internal static (Task<ShutdownResult> Drain, bool ReturnedEarly) DrainAfterTheCall(
        SlimThreadPool pool, ManualResetEventSlim returned, TimeSpan early, Action release, Action<bool> drainReturned)
    {
        if (returned.Wait(early))
        {
            Task<ShutdownResult> drain = pool.ShutdownAsync(ShutdownMode.Drain);
            drainReturned(((IAsyncResult)drain).AsyncWaitHandle.WaitOne(TimeSpan.FromSeconds(3)));
            release();
            return (drain, true);
        }

        release();
        Bounded.Wait(returned, "the producer's call, once the turn is published");
        return (pool.ShutdownAsync(ShutdownMode.Drain), false);
    }

    [Fact]
    public void Queue_ManyProducersOnATurnHeldUnpublished_AllReturnOnceItIsPublishedAndEveryItemRunsOnce()
    {
        // Producers whose calls wait for the publish wake when it ends (its generation moves on), each item runs once,
        // and the group's items stay in the order they were queued.
        var queue = new GatedQueue();
        using SlimThreadPool pool = queue.CreatePool();
        SlimThreadPoolGroup group = pool.CreateGroup();
        var order = new System.Collections.Concurrent.ConcurrentQueue<int>();
        queue.HoldNextEnqueue();
        var a = new Thread(() => group.Queue(() => order.Enqueue(0)));
        a.Start();
        Bounded.Wait(queue.Held, "the first producer to be held publishing the group's turn");
        const int Producers = 4;
        using var allReturned = new CountdownEvent(Producers);
        var threads = new Thread[Producers];
        for (int i = 0; i < Producers; i++)
        {
            int id = i + 1;
            threads[i] = new Thread(() =>
            {
                group.Queue(() => order.Enqueue(id));
                allReturned.Signal();
            });
            threads[i].Start();
        }

        Assert.False(allReturned.Wait(100), "a producer returned while the turn its item rides was unpublished");
        queue.Release();
        Bounded.Wait(allReturned, "every producer's call once the turn is published");
        Bounded.Wait(group.WaitForIdleAsync(), "the group's items");
        Assert.Equal(Producers + 1, order.Count);
        Assert.Equal(Producers + 1, order.Distinct().Count());
        Assert.Equal(0, order.First());
    }
}
