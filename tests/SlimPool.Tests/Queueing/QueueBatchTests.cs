using System.Collections.Concurrent;
using SlimPool.Tests.Infrastructure;

namespace SlimPool.Tests.Queueing;

/// <summary>
/// <see cref="SlimThreadPool.QueueBatch(ReadOnlySpan{IWorkItem})"/> and its forms: every item once, in order on one
/// worker, all or nothing (bad input, a full bounded pool, a shutdown racing the call), a worker per item when they
/// are needed, the caller's context once for the batch.
/// </summary>
public sealed class QueueBatchTests
{
    [Theory]
    [MemberData(nameof(TestPools.QueueAndIdleWaits), MemberType = typeof(TestPools))]
    public void QueueBatch_EveryConfiguration_RunsEachItemExactlyOnce(WorkQueueKind queue, IdleWaitKind idleWait)
    {
        const int Items = 3_000;
        var ledger = new Ledger(2 * Items);
        using SlimThreadPool pool = TestPools.Create(queue, idleWait);

        IWorkItem[] items = [.. Enumerable.Range(0, Items).Select(id => new MarkItem(ledger, id))];
        object?[] states = [.. Enumerable.Range(Items, Items).Select(id => (object?)id)];
        for (int start = 0; start < Items; start += 500)
        {
            pool.QueueBatch(items.AsSpan(start, 500));
            Assert.True(pool.TryQueueBatch(s => ledger.Mark((int)s!), states.AsSpan(start, 500)));
        }

        ledger.WaitAll("every batched item");
        ledger.AssertEachExactlyOnce();
        Bounded.Until(() => pool.CompletedWorkItemCount == 2 * Items, "the pool to count every batched item");
    }

    [Theory]
    [MemberData(nameof(TestPools.QueueAndIdleWaits), MemberType = typeof(TestPools))]
    public void QueueBatch_OneWorkerFromOutsideOrFromTheWorker_StartsTheItemsInTheOrderGiven(WorkQueueKind queue, IdleWaitKind idleWait)
    {
        using SlimThreadPool pool = TestPools.Create(queue, idleWait, workers: 1);
        var started = new ConcurrentQueue<int>();
        object?[] outside = [.. Enumerable.Range(0, 300).Select(id => (object?)id)];
        object?[] inside = [.. Enumerable.Range(300, 300).Select(id => (object?)id)];
        using var done = new CountdownEvent(600);
        Action<object?> record = s =>
        {
            started.Enqueue((int)s!);
            done.Signal();
        };

        using (var blocked = new BlockedWorkers(pool))
        {
            pool.QueueBatch(record, outside);
        }

        Bounded.Wait(pool.Run(() => pool.QueueBatch(record, inside)), "the item that queues a batch from the worker");
        Bounded.Wait(done, "both batches");

        Assert.Equal(Enumerable.Range(0, 600), started);
    }

    [Fact]
    public void QueueBatch_NullItem_ThrowsNamingTheArgumentAndQueuesNothing()
    {
        using SlimThreadPool pool = TestPools.Create();
        var ran = new CountingWorkItem(null);

        ArgumentException thrown = Assert.Throws<ArgumentException>(() => pool.QueueBatch([ran, null!, ran]));
        Assert.Equal("workItems", thrown.ParamName);
        Assert.Contains("index 1", thrown.Message, StringComparison.Ordinal);
        Assert.Throws<ArgumentException>(() => pool.TryQueueBatch([ran, null!]));
        Assert.Throws<ArgumentNullException>("callback", () => pool.QueueBatch(null!, [1, 2]));
        Assert.Throws<ArgumentNullException>("callback", () => pool.TryQueueBatch(null!, [1, 2]));

        Bounded.Wait(pool.WaitForIdleAsync(), "the pool to be idle");
        Assert.Equal(0, ran.Executions);
        Assert.Equal(0, pool.CompletedWorkItemCount);
    }

    [Fact]
    public void QueueBatch_EmptyBatch_QueuesNothingAndAShutDownPoolStillRefusesIt()
    {
        using SlimThreadPool pool = TestPools.Create();
        pool.QueueBatch(ReadOnlySpan<IWorkItem>.Empty);
        Assert.True(pool.TryQueueBatch(static _ => { }, ReadOnlySpan<object?>.Empty));

        pool.Dispose();

        Assert.Throws<ObjectDisposedException>(() => pool.QueueBatch(ReadOnlySpan<IWorkItem>.Empty));
        Assert.Throws<ObjectDisposedException>(() => pool.QueueBatch(static _ => { }, [1]));
        Assert.False(pool.TryQueueBatch([new CountingWorkItem(null)]));
    }

    [Fact]
    public void TryQueueBatch_BoundedPoolWithoutRoomForTheWholeBatch_ReturnsFalseAndQueuesNone()
    {
        using SlimThreadPool pool = TestPools.Create(workers: 1, options => options.BoundedCapacity = 4);
        var ran = new CountingWorkItem(null);
        using (var blocked = new BlockedWorkers(pool))
        {
            Assert.True(pool.TryQueue(ran));
            Assert.True(pool.TryQueue(ran));

            Assert.False(pool.TryQueueBatch([ran, ran, ran])); // 2 free slots, 3 items
            Assert.True(pool.TryQueueBatch([ran, ran]));
            Assert.False(pool.TryQueue(ran));
        }

        Bounded.Until(() => ran.Executions == 4, "the four accepted items");
        Bounded.Wait(pool.WaitForIdleAsync(), "the pool to be idle");
        Assert.Equal(4, ran.Executions);
    }

    [Fact]
    public void QueueBatch_LargerThanTheBound_ThrowsNamingTheArgument()
    {
        using SlimThreadPool pool = TestPools.Create(configure: options => options.BoundedCapacity = 2);

        ArgumentException thrown = Assert.Throws<ArgumentException>(() => pool.QueueBatch(static _ => { }, [1, 2, 3]));
        Assert.Equal("states", thrown.ParamName);
        Assert.Throws<ArgumentException>("workItems", () => pool.TryQueueBatch([new CountingWorkItem(null), new CountingWorkItem(null), new CountingWorkItem(null)]));
    }

    [Fact]
    public void QueueBatch_BoundedPoolFull_WaitsForRoomForTheWholeBatch()
    {
        using SlimThreadPool pool = TestPools.Create(workers: 1, options => options.BoundedCapacity = 3);
        var ran = new CountingWorkItem(null);
        using var queued = new ManualResetEventSlim();
        Thread producer;
        using (var blocked = new BlockedWorkers(pool))
        {
            pool.Queue(ran);
            pool.Queue(ran);
            producer = new Thread(() =>
            {
                pool.QueueBatch([ran, ran, ran]);
                queued.Set();
            }) { IsBackground = true };
            producer.Start();

            // Waiting, not refused and not partly queued: one slot is free but the batch needs three.
            Assert.False(queued.Wait(TimeSpan.FromMilliseconds(200)));
            Assert.Equal(2, pool.PendingWorkItemCount);
        }

        Bounded.Wait(queued, "the batch to get room");
        Bounded.Until(() => ran.Executions == 5, "every item");
        Assert.True(producer.Join(Bounded.Timeout));
    }

    [Fact]
    public void QueueBatch_TwoProducersEachNeedingMostOfTheBound_NeitherWaitsForTheOtherForEver()
    {
        // Each batch needs 3 of the 4 slots: two producers gathering slots at once would each hold some and wait for the
        // other's. One gathers at a time, so both get through.
        using SlimThreadPool pool = TestPools.Create(workers: 1, options => options.BoundedCapacity = 4);
        var ran = new CountingWorkItem(null);
        const int Rounds = 200;
        void Produce()
        {
            for (int i = 0; i < Rounds; i++)
            {
                pool.QueueBatch([ran, ran, ran]);
            }
        }

        Task first = Task.Run(Produce);
        Task second = Task.Run(Produce);

        Bounded.Wait(Task.WhenAll(first, second), "both producers' batches");
        Bounded.Until(() => ran.Executions == 2 * Rounds * 3, "every item");

        // Every slot came back: with the worker held, exactly the bound fits again, and not one item more.
        Bounded.Wait(pool.WaitForIdleAsync(), "the pool to be idle");
        using var blocked = new BlockedWorkers(pool);
        Assert.True(pool.TryQueueBatch([ran, ran, ran, ran]));
        Assert.False(pool.TryQueue(ran));
    }

    [Fact]
    public void QueueBatch_FullBoundedPoolOnItsOwnWorker_GoesOverTheBoundInsteadOfWaiting()
    {
        using SlimThreadPool pool = TestPools.Create(workers: 1, options => options.BoundedCapacity = 2);
        var ran = new CountingWorkItem(null);

        Task outer = pool.Run(() =>
        {
            Assert.True(pool.TryQueueBatch([ran, ran])); // fills the bound; this worker is the only one
            pool.QueueBatch([ran, ran]);               // waiting here would wait for itself
        });

        Bounded.Wait(outer, "the item that queues on its own full pool");
        Bounded.Until(() => ran.Executions == 4, "every item");
    }

    [Theory]
    [MemberData(nameof(TestPools.QueueAndIdleWaits), MemberType = typeof(TestPools))]
    public void QueueBatch_WorkersParked_WakesAWorkerForEachItemThatNeedsOne(WorkQueueKind queue, IdleWaitKind idleWait)
    {
        // Two items that can only finish together: the batch's one wake check must lead to both workers running.
        using SlimThreadPool pool = TestPools.Create(queue, idleWait, workers: 2);
        Bounded.Wait(pool.WaitForIdleAsync(), "the pool to be idle");
        Thread.Sleep(50); // past the search: both workers parked
        using var barrier = new Barrier(2);
        int met = 0;
        Action<object?> meet = _ =>
        {
            if (barrier.SignalAndWait(Bounded.Timeout))
            {
                Interlocked.Increment(ref met);
            }
        };

        pool.QueueBatch(meet, [null, null]);

        Bounded.Until(() => Volatile.Read(ref met) == 2, "both items to meet on two workers");
    }

    [Theory]
    [InlineData(false)]
    [InlineData(true)]
    public void QueueBatch_FlowExecutionContext_EveryItemSeesTheCallersValuesUnlessSuppressed(bool suppress)
    {
        using SlimThreadPool pool = TestPools.Create(configure: options => options.FlowExecutionContext = true);
        var local = new AsyncLocal<string>();
        var seen = new ConcurrentQueue<string?>();
        using var done = new CountdownEvent(100);
        local.Value = "producer";
        object?[] states = new object?[100];
        Action<object?> look = _ =>
        {
            seen.Enqueue(local.Value);
            done.Signal();
        };

        if (suppress)
        {
            using (ExecutionContext.SuppressFlow())
            {
                pool.QueueBatch(look, states);
            }
        }
        else
        {
            pool.QueueBatch(look, states);
        }

        Bounded.Wait(done, "every item");
        Assert.All(seen, value => Assert.Equal(suppress ? null : "producer", value));
    }

    [Theory]
    [InlineData(ShutdownMode.Drain)]
    [InlineData(ShutdownMode.Abandon)]
    public void QueueBatch_RacingAShutdown_AcceptsTheWholeBatchOrNoneOfIt(ShutdownMode mode)
    {
        int rounds = StressSize.Pick(quick: 60, longRun: 1_000);
        for (int round = 0; round < rounds; round++)
        {
            using SlimThreadPool pool = TestPools.Create(workers: 2);
            var ran = new CountingWorkItem(null);
            IWorkItem[] batch = [.. Enumerable.Repeat<IWorkItem>(ran, 150)];
            using var go = new ManualResetEventSlim();
            bool? accepted = null;
            var producer = new Thread(() =>
            {
                go.Wait();
                accepted = pool.TryQueueBatch(batch);
            }) { IsBackground = true };
            producer.Start();

            go.Set();
            if (round % 2 == 0)
            {
                Thread.SpinWait(round * 50);
            }

            ShutdownResult result = Bounded.Result(pool.ShutdownAsync(mode), "the shutdown");
            Assert.True(producer.Join(Bounded.Timeout), "the producer did not return");
            int handedBack = result.AbandonedItems.Count(item => ReferenceEquals(item.Callback, ran));
            int expected = accepted == true ? 150 : 0;
            Bounded.Until(() => ran.Executions + handedBack >= expected, "the accepted batch to be run or handed back");
            if (ran.Executions + handedBack != expected)
            {
                Assert.Fail($"Round {round}: the batch was {(accepted == true ? "accepted" : "refused")}, yet {ran.Executions} of its items ran and {handedBack} were handed back (expected {expected} in all).");
            }

            if (mode == ShutdownMode.Drain && handedBack != 0)
            {
                Assert.Fail($"Round {round}: a drain handed back {handedBack} items.");
            }
        }
    }

    private sealed class MarkItem(Ledger ledger, int id) : IWorkItem
    {
        public void Execute() => ledger.Mark(id);
    }
}
