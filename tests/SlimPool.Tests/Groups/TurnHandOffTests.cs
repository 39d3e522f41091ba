using System.Collections.Concurrent;
using SlimPool.Queues;
using SlimPool.Tests.Infrastructure;

namespace SlimPool.Tests.Groups;

/// <summary>
/// A group's turn that ends on a worker runs the next group's turn from the worker's own slot itself, without going back
/// through the worker's loop (<c>SlimThreadPool.TryTakeNextTurn</c>). What the loop would have taken first still comes
/// first: the fair looks, the slot's budget, a High item, and the bound on the pool's capacity holds. On every queue and
/// idle wait (only the work-stealing queue has slots; the others must keep the same promises).
/// </summary>
public sealed class TurnHandOffTests
{
    public static TheoryData<WorkQueueKind, IdleWaitKind> Configurations() => TestPools.QueueAndIdleWaits();

    [Theory]
    [MemberData(nameof(Configurations))]
    public void GroupQueue_PingPongBetweenTwoGroups_AnItemFromOutsideStartsWithinAFewFairLooks(WorkQueueKind queue, IdleWaitKind idleWait)
    {
        // One worker: the message's turns pass through its slot, and the outside item waits in the shared queue for a fair
        // look. Each message is one look, whether the loop or the ending turn takes it.
        using SlimThreadPool pool = Create(queue, idleWait, workers: 1);
        using var rally = new Rally(pool, messages: 2_000_000);
        rally.Start();
        Bounded.Until(() => rally.Messages > 1_000, "the rally to run");
        var ran = new TaskCompletionSource<long>(TaskCreationOptions.RunContinuationsAsynchronously);
        pool.Queue(() => ran.SetResult(rally.Messages));
        long queuedAt = rally.Messages; // after the call: the item is queued from here on
        long ranAt = Bounded.Result(ran.Task, "the outside item beside the rally");
        rally.Stop();

        long bound = 4L * WorkStealingWorkQueue.FairInterval;
        Assert.True(ranAt - queuedAt <= bound, $"the outside item waited while {ranAt - queuedAt} messages ran (bound {bound})");
    }

    [Theory]
    [MemberData(nameof(Configurations))]
    public void GroupQueue_ItemQueuedOnTheWorkerBesidePingPong_StartsWithinTheSlotsBudget(WorkQueueKind queue, IdleWaitKind idleWait)
    {
        // Queued from a message, the item takes the slot, and the next message's turn moves it to the worker's ring; the
        // rally then runs through the slot, which gives the ring a turn after its budget of takes in a row.
        using SlimThreadPool pool = Create(queue, idleWait, workers: 1);
        var ran = new TaskCompletionSource<long>(TaskCreationOptions.RunContinuationsAsynchronously);
        long queuedAt = -1;
        using var rally = new Rally(pool, messages: 2_000_000, onMessage: (r, message) =>
        {
            if (message == 1_000)
            {
                pool.Queue(() => ran.SetResult(r.Messages));
                queuedAt = message;
            }
        });
        rally.Start();
        long ranAt = Bounded.Result(ran.Task, "the item queued on the worker beside the rally");
        rally.Stop();

        long bound = 2L * (WorkerQueues.SlotBudget + 1);
        Assert.True(ranAt - Volatile.Read(ref queuedAt) <= bound, $"the item waited while {ranAt - queuedAt} messages ran (bound {bound})");
    }

    [Theory]
    [MemberData(nameof(Configurations))]
    public void GroupQueue_HighItemQueuedBeforeAnotherGroupsMessage_RunsFirst(WorkQueueKind queue, IdleWaitKind idleWait)
    {
        // The worker's loop takes a High item from its lane before it looks at the queues, the slot included; the turn
        // that ends must not take the slot's turn past it.
        using SlimThreadPool pool = Create(queue, idleWait, workers: 1);
        using SlimThreadPoolGroup first = pool.CreateGroup();
        using SlimThreadPoolGroup second = pool.CreateGroup();
        var order = new ConcurrentQueue<string>();
        using var done = new CountdownEvent(10);
        for (int i = 0; i < 10; i++)
        {
            int id = i;
            first.Queue(() =>
            {
                pool.Queue(() => { order.Enqueue($"high {id}"); done.Signal(); }, WorkItemPriority.High);
                second.Queue(() => order.Enqueue($"message {id}"));
            });
        }

        Bounded.Wait(done, "the High items");
        Bounded.Wait(second.WaitForIdleAsync(), "the messages");
        string[] seen = [.. order];
        for (int i = 0; i < 10; i++)
        {
            Assert.True(Array.IndexOf(seen, $"high {i}") < Array.IndexOf(seen, $"message {i}"), $"message {i} ran before high {i}: {string.Join(", ", seen)}");
        }
    }

    [Theory]
    [MemberData(nameof(Configurations))]
    public void GroupQueue_PingPongOnABoundedPool_GivesEveryTurnsSlotBack(WorkQueueKind queue, IdleWaitKind idleWait)
    {
        // Each turn queued holds one of the pool's slots until a worker takes it; a turn taken by the ending turn gives it
        // back as the loop's take does, or the bound would fill with turns long gone.
        const int Capacity = 8;
        using SlimThreadPool pool = Create(queue, idleWait, workers: 1, bound: Capacity);
        using (var rally = new Rally(pool, messages: 20_000))
        {
            rally.Start();
            Bounded.Wait(rally.Finished, "the rally");
        }

        using var blocked = new BlockedWorkers(pool);
        for (int i = 0; i < Capacity; i++)
        {
            Assert.True(pool.TryQueue(static () => { }), $"item {i} of {Capacity} was refused: the bound holds slots of turns that ran");
        }

        Assert.False(pool.TryQueue(static () => { }), "the bound let one item too many in");
        blocked.Release();
    }

    private static SlimThreadPool Create(WorkQueueKind queue, IdleWaitKind idleWait, int workers, int? bound = null, [System.Runtime.CompilerServices.CallerMemberName] string name = "") =>
        TestPools.Create(queue, idleWait, workers, o => o.BoundedCapacity = bound, name);

    // Two serial groups passing one message back and forth: each message finds its group idle, a turn of one item
    // queued from the other group's item, on the worker that runs it.
    private sealed class Rally : IDisposable
    {
        private readonly SlimThreadPoolGroup _ping;
        private readonly SlimThreadPoolGroup _pong;
        private readonly int _messages;
        private readonly Action<Rally, long>? _onMessage;
        private long _messagesRun;
        private volatile bool _stop;

        public Rally(SlimThreadPool pool, int messages, Action<Rally, long>? onMessage = null)
        {
            _ping = pool.CreateGroup();
            _pong = pool.CreateGroup();
            _messages = messages;
            _onMessage = onMessage;
        }

        public ManualResetEventSlim Finished { get; } = new();

        public long Messages => Volatile.Read(ref _messagesRun);

        public void Start() => _ping.Queue(() => Receive(_pong));

        public void Stop()
        {
            _stop = true;
            Bounded.Wait(Finished, "the rally to stop");
        }

        public void Dispose()
        {
            _stop = true;
            Bounded.Wait(Finished, "the rally to stop");
            _ping.Dispose();
            _pong.Dispose();
            Finished.Dispose();
        }

        private void Receive(SlimThreadPoolGroup outbox)
        {
            long message = Interlocked.Increment(ref _messagesRun);
            _onMessage?.Invoke(this, message);
            if (_stop || message >= _messages)
            {
                Finished.Set();
                return;
            }

            SlimThreadPoolGroup next = outbox == _pong ? _ping : _pong;
            outbox.Queue(() => Receive(next));
        }
    }
}
