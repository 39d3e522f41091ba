using SlimPool.Tests.Infrastructure;

namespace SlimPool.Tests.Groups;

/// <summary>
/// Where groups meet the pool's other mechanisms: a cancelled drain, async items in a drain, ExecutionContext flow,
/// and an item run inline by a full bounded queue.
/// </summary>
public sealed class GroupCompositionTests
{
    public static TheoryData<WorkQueueKind, IdleWaitKind> Configurations() => TestPools.QueueAndIdleWaits();

    [Theory]
    [MemberData(nameof(Configurations))]
    public void PoolShutdown_DrainCancelledWhileASerialGroupRuns_NothingStartsAfterTheResultAndTheBacklogComesBack(WorkQueueKind queue, IdleWaitKind idleWait)
    {
        SlimThreadPool pool = TestPools.Create(queue, idleWait, 1);
        SlimThreadPoolGroup group = pool.CreateGroup();
        string prefix = pool.Name + " #";
        bool returned = false;
        int ran = 0, startedLate = 0, offPool = 0;
        using var firstStarted = new ManualResetEventSlim();
        for (int i = 0; i < 200; i++)
        {
            group.Queue(() =>
            {
                if (Volatile.Read(ref returned))
                {
                    Interlocked.Increment(ref startedLate);
                }

                if (Thread.CurrentThread.Name?.StartsWith(prefix, StringComparison.Ordinal) != true)
                {
                    Interlocked.Increment(ref offPool);
                }

                firstStarted.Set();
                Thread.Sleep(20);
                Interlocked.Increment(ref ran);
            });
        }

        Bounded.Wait(firstStarted, "the group's first item");
        using var cancel = new CancellationTokenSource(TimeSpan.FromMilliseconds(10));
        ShutdownResult result = Bounded.Result(pool.ShutdownAsync(ShutdownMode.Drain, cancel.Token), "the cancelled drain");
        Volatile.Write(ref returned, true);
        Thread.Sleep(300); // anything left behind would run now

        Assert.Equal(ShutdownMode.Abandon, result.Mode);
        Assert.Equal(0, Volatile.Read(ref startedLate));
        Assert.Equal(0, Volatile.Read(ref offPool));
        Assert.True(result.RunningWorkItemCount <= 1, $"{result.RunningWorkItemCount} items said to be running on one worker");
        Assert.Equal(200, Volatile.Read(ref ran) + result.AbandonedCount); // each ran before the result, or came back
        Assert.True(result.AbandonedCount > 0, "the group's backlog did not come back");
    }

    [Theory]
    [InlineData(false)]
    [InlineData(true)]
    public void Shutdown_DrainOfASerialGroupWithAsyncItems_ContinuationsRunInTheGroupOneAtATime(bool drainThePool)
    {
        SlimThreadPool pool = TestPools.Create(2);
        SlimThreadPoolGroup group = pool.CreateGroup();
        string prefix = pool.Name + " #";
        int inside = 0, overlaps = 0, offPool = 0, continued = 0;

        void Enter()
        {
            if (Interlocked.Increment(ref inside) != 1)
            {
                Interlocked.Increment(ref overlaps);
            }

            if (Thread.CurrentThread.Name?.StartsWith(prefix, StringComparison.Ordinal) != true)
            {
                Interlocked.Increment(ref offPool);
            }

            Thread.SpinWait(2_000);
        }

        for (int i = 0; i < 200; i++)
        {
            group.Queue(async () =>
            {
                Enter();
                Interlocked.Decrement(ref inside);
                await Task.Yield(); // resumes in the group, through its SynchronizationContext
                Enter();
                Interlocked.Increment(ref continued);
                Interlocked.Decrement(ref inside);
            });
        }

        Thread.Sleep(5);
        ShutdownResult result = drainThePool
            ? Bounded.Result(pool.ShutdownAsync(ShutdownMode.Drain), "the pool's drain")
            : Bounded.Result(group.ShutdownAsync(ShutdownMode.Drain), "the group's drain");

        Assert.Equal(ShutdownMode.Drain, result.Mode);
        Assert.Equal(0, result.AbandonedCount);
        Assert.Equal(200, Volatile.Read(ref continued)); // every continuation ran before the drain returned
        Assert.Equal(0, Volatile.Read(ref offPool));
        Assert.Equal(0, Volatile.Read(ref overlaps));
        pool.Dispose();
    }

    [Fact]
    public void GroupQueue_FlowingContextFromOneProducerAndSuppressedFromAnother_EachItemSeesOnlyItsOwn()
    {
        using SlimThreadPool pool = TestPools.Create(1, o => o.FlowExecutionContext = true);
        using SlimThreadPoolGroup group = pool.CreateGroup();
        var value = new AsyncLocal<string?>();
        using var firstStarted = new ManualResetEventSlim();
        string? seenByA = "unset", seenByB = "unset";
        using var done = new CountdownEvent(2);

        var a = new Thread(() =>
        {
            value.Value = "A";
            group.Queue(() => { seenByA = value.Value; firstStarted.Set(); Thread.Sleep(50); done.Signal(); });
        });
        a.Start();
        Assert.True(a.Join(Bounded.Timeout));
        Bounded.Wait(firstStarted, "A's item");

        var b = new Thread(() =>
        {
            using (ExecutionContext.SuppressFlow())
            {
                group.Queue(() => { seenByB = value.Value; done.Signal(); });
            }
        });
        b.Start();
        Assert.True(b.Join(Bounded.Timeout));
        Bounded.Wait(done, "both items");

        Assert.Equal("A", seenByA);
        Assert.Null(seenByB);
    }

    [Fact]
    public void PoolQueue_FullBoundedQueueInsideAGroupItem_RunsTheInlineItemAsAPoolItemNotAGroupItem()
    {
        using SlimThreadPool pool = TestPools.Create(1, o => { o.BoundedCapacity = 1; o.FlowExecutionContext = true; });
        using SlimThreadPoolGroup group = pool.CreateGroup();
        var value = new AsyncLocal<string?>();
        SynchronizationContext? poolContext = null, inlineContext = null;
        string? inlineValue = "unset";
        using var done = new ManualResetEventSlim();
        pool.Queue(() => poolContext = SynchronizationContext.Current);
        Bounded.Wait(pool.WaitForIdleAsync(), "the first item");

        value.Value = "producer";
        group.Queue(() =>
        {
            using (ExecutionContext.SuppressFlow())
            {
                pool.Queue(() => { });                      // fills the queue (its one slot)
                pool.Queue(() =>                            // full, on a worker: runs inline, here
                {
                    inlineContext = SynchronizationContext.Current;
                    inlineValue = value.Value;
                });
            }

            done.Set();
        });

        Bounded.Wait(done, "the group item");
        Assert.NotNull(poolContext);
        Assert.Same(poolContext, inlineContext);
        Assert.NotSame(group.SynchronizationContext, inlineContext);
        Assert.Null(inlineValue);
    }
}
