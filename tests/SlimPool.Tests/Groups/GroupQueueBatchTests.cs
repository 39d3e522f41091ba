using System.Collections.Concurrent;
using SlimPool.Tests.Infrastructure;

namespace SlimPool.Tests.Groups;

/// <summary>
/// <see cref="SlimThreadPoolGroup.QueueBatch(ReadOnlySpan{IWorkItem})"/> and its forms: a serial group keeps the batch's
/// order, a wider group takes a turn for each item it can run at once, all or none against the group's close and the
/// pool's bound and shutdown.
/// </summary>
public sealed class GroupQueueBatchTests
{
    [Theory]
    [MemberData(nameof(TestPools.QueueAndIdleWaits), MemberType = typeof(TestPools))]
    public void QueueBatch_SerialGroupOnAWidePool_RunsTheItemsOneAtATimeInOrder(WorkQueueKind queue, IdleWaitKind idleWait)
    {
        using SlimThreadPool pool = TestPools.Create(workers: 4, options =>
        {
            options.Queue = queue;
            options.IdleWait = idleWait;
        });
        using SlimThreadPoolGroup group = pool.CreateGroup(new SlimGroupOptions { MaxConcurrency = 1, MaxItemsPerTurn = 7 });
        var order = new List<int>(); // plain: a serial group's items see each other's writes
        int running = 0;
        int overlaps = 0;
        using var done = new CountdownEvent(2_000);
        Action<object?> record = s =>
        {
            if (Interlocked.Increment(ref running) != 1)
            {
                Interlocked.Increment(ref overlaps);
            }

            order.Add((int)s!);
            Interlocked.Decrement(ref running);
            done.Signal();
        };

        object?[] states = [.. Enumerable.Range(0, 2_000).Select(i => (object?)i)];
        for (int start = 0; start < states.Length; start += 100)
        {
            group.QueueBatch(record, states.AsSpan(start, 100));
            pool.Queue(static () => Thread.SpinWait(50)); // other work, so the group's turns yield and come back
        }

        Bounded.Wait(done, "every batched group item");
        Assert.Equal(0, overlaps);
        Assert.Equal(Enumerable.Range(0, 2_000), order);
    }

    [Fact]
    public void QueueBatch_GroupOfTwoWithParkedWorkers_TakesATurnForEachItemItCanRun()
    {
        // Two items that can only finish together: the batch must take two turns, not one.
        using SlimThreadPool pool = TestPools.Create(workers: 2);
        using SlimThreadPoolGroup group = pool.CreateGroup(new SlimGroupOptions { MaxConcurrency = 2 });
        Bounded.Wait(pool.WaitForIdleAsync(), "the pool to be idle");
        using var barrier = new Barrier(2);
        int met = 0;

        group.QueueBatch(_ =>
        {
            if (barrier.SignalAndWait(Bounded.Timeout))
            {
                Interlocked.Increment(ref met);
            }
        }, [null, null]);

        Bounded.Until(() => Volatile.Read(ref met) == 2, "both items to meet on two workers");
    }

    [Fact]
    public void QueueBatch_ClosedGroupOrBadInput_QueuesNothingAndSaysWhy()
    {
        using SlimThreadPool pool = TestPools.Create(configure: options => options.BoundedCapacity = 3);
        SlimThreadPoolGroup group = pool.CreateGroup();
        var ran = new CountingWorkItem(null);

        Assert.Throws<ArgumentException>("workItems", () => group.QueueBatch([ran, null!]));
        Assert.Throws<ArgumentException>("states", () => group.QueueBatch(static _ => { }, [1, 2, 3, 4]));
        Assert.Throws<ArgumentNullException>("callback", () => group.TryQueueBatch(null!, [1]));
        Assert.True(group.TryQueueBatch(ReadOnlySpan<IWorkItem>.Empty));

        group.Dispose();

        Assert.False(group.TryQueueBatch([ran, ran]));
        ObjectDisposedException thrown = Assert.Throws<ObjectDisposedException>(() => group.QueueBatch([ran]));
        Assert.Contains(group.Name, thrown.Message, StringComparison.Ordinal);
        Assert.False(group.TryQueueBatch(ReadOnlySpan<IWorkItem>.Empty));
        Bounded.Wait(pool.WaitForIdleAsync(), "the pool to be idle");
        Assert.Equal(0, ran.Executions);
        Assert.Equal(0, group.PendingWorkItemCount);
    }

    [Fact]
    public void Queue_DisposedGroupWhoseNameWasNeverRead_ThrowsNamingTheGroup()
    {
        // The name is made on first use: the message must make it, not print an empty one.
        using SlimThreadPool pool = TestPools.Create();
        SlimThreadPoolGroup group = pool.CreateGroup();
        group.Dispose();

        ObjectDisposedException single = Assert.Throws<ObjectDisposedException>(() => group.Queue(static () => { }));
        ObjectDisposedException batch = Assert.Throws<ObjectDisposedException>(() => group.QueueBatch(static _ => { }, [1]));

        Assert.Contains($"'{group.Name}'", single.Message, StringComparison.Ordinal);
        Assert.Contains($"'{group.Name}'", batch.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void TryQueueBatch_PoolBoundWithoutRoomForTheWholeBatch_ReturnsFalseAndQueuesNone()
    {
        using SlimThreadPool pool = TestPools.Create(workers: 1, options => options.BoundedCapacity = 4);
        using SlimThreadPoolGroup group = pool.CreateGroup();
        var ran = new CountingWorkItem(null);
        using (var blocked = new BlockedWorkers(pool))
        {
            Assert.True(group.TryQueueBatch([ran, ran])); // two slots, and one for the group's turn queued on the pool
            Assert.False(group.TryQueueBatch([ran, ran])); // one slot left
            Assert.True(pool.TryQueue(ran));
            Assert.False(pool.TryQueue(ran));
        }

        Bounded.Until(() => ran.Executions == 3, "the three accepted items");
        Bounded.Wait(pool.WaitForIdleAsync(), "the pool to be idle");
        Assert.Equal(3, ran.Executions);
    }

    [Theory]
    [InlineData(ShutdownMode.Drain)]
    [InlineData(ShutdownMode.Abandon)]
    public void QueueBatch_RacingThePoolsShutdown_TheGroupAcceptsTheWholeBatchOrNone(ShutdownMode mode)
    {
        int rounds = StressSize.Pick(quick: 60, longRun: 1_000);
        for (int round = 0; round < rounds; round++)
        {
            using SlimThreadPool pool = TestPools.Create(workers: 2);
            SlimThreadPoolGroup group = pool.CreateGroup(new SlimGroupOptions { MaxConcurrency = 1 + (round % 2) });
            var ran = new CountingWorkItem(null);
            IWorkItem[] batch = [.. Enumerable.Repeat<IWorkItem>(ran, 40)];
            using var go = new ManualResetEventSlim();
            bool? accepted = null;
            var producer = new Thread(() =>
            {
                go.Wait();
                accepted = group.TryQueueBatch(batch);
            }) { IsBackground = true };
            producer.Start();

            go.Set();
            Thread.SpinWait(round * 40);
            ShutdownResult result = Bounded.Result(pool.ShutdownAsync(mode), "the shutdown");
            Assert.True(producer.Join(Bounded.Timeout), "the producer did not return");

            int handedBack = result.AbandonedItems.Count(item => ReferenceEquals(item.Callback, ran));
            int expected = accepted == true ? 40 : 0;
            Bounded.Until(() => ran.Executions + handedBack >= expected, "the accepted batch to be run or handed back");
            if (ran.Executions + handedBack != expected)
            {
                Assert.Fail($"Round {round}: the batch was {(accepted == true ? "accepted" : "refused")}, yet {ran.Executions} of its items ran and {handedBack} were handed back (expected {expected} in all).");
            }
        }
    }

    [Fact]
    public void QueueBatch_SerialGroupWhoseQueueIsDroppedBetweenBatches_KeepsEveryItemInOrder()
    {
        // Small batches to a serial group whose queue empties (and is dropped) between them, on workers that park and
        // drop the queues they kept: every batch lands in the queue the group holds, or in the one that replaces it.
        using SlimThreadPool pool = TestPools.Create(workers: 2);
        using SlimThreadPoolGroup group = pool.CreateGroup(new SlimGroupOptions { MaxConcurrency = 1 });
        var order = new ConcurrentQueue<int>();
        int total = StressSize.Pick(quick: 3_000, longRun: 100_000);
        using var done = new CountdownEvent(total);
        Action<object?> record = s =>
        {
            order.Enqueue((int)s!);
            done.Signal();
        };

        var random = new Random(11);
        int next = 0;
        while (next < total)
        {
            int length = Math.Min(total - next, random.Next(1, 12));
            object?[] states = [.. Enumerable.Range(next, length).Select(i => (object?)i)];
            group.QueueBatch(record, states);
            next += length;
            if (random.Next(8) == 0)
            {
                Thread.Sleep(1); // long enough for the workers to park and drop the queue
            }
        }

        Bounded.Wait(done, "every item");
        Assert.Equal(Enumerable.Range(0, total), order);
    }
}
