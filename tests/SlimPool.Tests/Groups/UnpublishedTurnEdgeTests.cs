using SlimPool.Tests.Infrastructure;

namespace SlimPool.Tests.Groups;

/// <summary>
/// The wait behind a turn another producer has not yet published, where it meets a publisher preempted after its
/// enqueue, an enqueue that throws, and a <see cref="Thread.Interrupt"/> (an adversarial review's repros: each failed on
/// the first version of the wait).
/// </summary>
public sealed class UnpublishedTurnEdgeTests
{
    // P publishes the group's turn (the entry is in the queue) but is preempted before its add leaves the publishers'
    // count; the worker runs that turn and ends it. Q takes the group's turn (counted a publisher) and is held before
    // its enqueue. R's take fails with turns (1) <= publishers (2): it waits. P's late add moves the generation on,
    // though no turn ended and Q's turn is still unpublished: R returns on a turn not where the drain's workers look.
    [Fact]
    public void Queue_StalePublisherAddMovesGeneration_ReturnsWhileOnlyAnUnpublishedTurnHoldsTheItem()
    {
        var queue = new GatedQueue();
        using SlimThreadPool pool = queue.CreatePool();
        SlimThreadPoolGroup group = pool.CreateGroup();
        using var blockerRunning = new ManualResetEventSlim();
        using var releaseBlocker = new ManualResetEventSlim();
        pool.Queue(() =>
        {
            blockerRunning.Set();
            releaseBlocker.Wait(Bounded.Timeout);
        });
        Bounded.Wait(blockerRunning, "the blocker to run on the single worker");

        // P: its turn goes into the pool's queue, then P is held before PublishTaken's add.
        queue.HoldNextAfterEnqueue();
        var p = new Thread(() => group.Queue(() => { }));
        p.Start();
        Bounded.Wait(queue.HeldAfter, "P held after its turn's enqueue");

        // The worker takes P's turn, runs its item and ends the turn (the turn count drops to 0, P still counted).
        releaseBlocker.Set();
        Bounded.Until(() => group.CompletedWorkItemCount == 1, "P's item to run");
        Thread.Sleep(200); // the turn's end (the add right after the count)

        // Q: takes the turn (turns 1, publishers 2), held before its enqueue.
        queue.HoldNextEnqueue();
        int qThread = 0;
        var q = new Thread(() =>
        {
            qThread = Environment.CurrentManagedThreadId;
            group.Queue(() => { });
        });
        q.Start();
        Bounded.Wait(queue.Held, "Q held before its turn's enqueue");

        // R: its item rides on Q's turn.
        int ranOn = 0;
        bool drainReturned = false, ranAfterDrain = false;
        using var returned = new ManualResetEventSlim();
        var r = new Thread(() =>
        {
            group.Queue(() =>
            {
                Volatile.Write(ref ranOn, Environment.CurrentManagedThreadId);
                Volatile.Write(ref ranAfterDrain, Volatile.Read(ref drainReturned));
            });
            returned.Set();
        });
        r.Start();
        Assert.False(returned.Wait(200), "R returned before any publish (setup)");

        queue.ReleaseAfter(); // P's add: publishers 2 -> 1, generation + 1; Q still held
        Bounded.Run(() => Assert.True(p.Join(Bounded.Timeout)), "P");

        (Task<ShutdownResult> drain, bool rReturnedEarly) = UnpublishedTurnTests.DrainAfterTheCall(
            pool, returned, TimeSpan.FromSeconds(1), queue.Release, done => Volatile.Write(ref drainReturned, done));
        Bounded.Result(drain, "the drain");
        Bounded.Run(() => Assert.True(q.Join(Bounded.Timeout) && r.Join(Bounded.Timeout)), "Q and R");
        Bounded.Until(() => Volatile.Read(ref ranOn) != 0, "R's item to run");
        Assert.False(Volatile.Read(ref ranAfterDrain), $"R's item ran after the drain returned (on Q's thread: {qThread == Volatile.Read(ref ranOn)})");
        Assert.NotEqual(qThread, Volatile.Read(ref ranOn));
        Assert.False(rReturnedEarly, "R's queue call returned while the only turn for its item (Q's) was unpublished");
    }

    // A producer whose publish throws inside the pool's enqueue still leaves the publishers' count (it stayed counted,
    // and every later producer whose take failed waited for ever, before). The turn stays held, as it did before the
    // wait existed: the items behind it are stranded with the queue that threw.
    [Fact]
    public void Queue_AfterAPublishThrew_LaterQueueCallsReturn()
    {
        var queue = new GatedQueue();
        using SlimThreadPool pool = queue.CreatePool();
        SlimThreadPoolGroup group = pool.CreateGroup();
        queue.ThrowOnNextEnqueue();
        Assert.ThrowsAny<Exception>(() => group.Queue(() => { }));
        var t = new Thread(() => group.Queue(() => { })) { IsBackground = true };
        t.Start();
        Assert.True(t.Join(TimeSpan.FromSeconds(5)), "a later Queue call hangs in WaitForPublish");
    }

    // A producer waiting in WaitForPublish (SpinWait.SpinOnce sleeps) is interrupted: the item was accepted and runs,
    // yet its Queue call throws ThreadInterruptedException.
    [Fact]
    public void Queue_InterruptedWhileWaitingForAPublish_ReturnsNormally()
    {
        var queue = new GatedQueue();
        using SlimThreadPool pool = queue.CreatePool();
        SlimThreadPoolGroup group = pool.CreateGroup();
        queue.HoldNextEnqueue();
        var a = new Thread(() => group.Queue(() => { }));
        a.Start();
        Bounded.Wait(queue.Held, "the first producer held");
        Exception? thrown = null;
        int ran = 0;
        using var started = new ManualResetEventSlim();
        var b = new Thread(() =>
        {
            started.Set();
            try
            {
                group.Queue(() => Interlocked.Increment(ref ran));
            }
            catch (Exception e)
            {
                thrown = e;
            }
        });
        b.Start();
        Bounded.Wait(started, "B");
        Thread.Sleep(200);
        b.Interrupt();
        Thread.Sleep(200);
        queue.Release();
        Bounded.Run(() => Assert.True(a.Join(Bounded.Timeout) && b.Join(Bounded.Timeout)), "both producers");
        Bounded.Wait(group.WaitForIdleAsync(), "the group's items");
        Assert.Equal(1, Volatile.Read(ref ran));
        Assert.Null(thrown);
    }
}
