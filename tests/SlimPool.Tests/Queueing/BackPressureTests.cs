using SlimPool.Tests.Infrastructure;

namespace SlimPool.Tests.Queueing;

public sealed class BackPressureTests
{
    [Fact]
    public void TryQueue_QueueFull_ReturnsFalseUntilAWorkerTakesAnItem()
    {
        var ledger = new Ledger(3);
        using SlimThreadPool pool = TestPools.Create(workers: 1, options => options.BoundedCapacity = 3);
        using var blocked = new BlockedWorkers(pool);

        for (int i = 0; i < 3; i++)
        {
            int id = i;
            Assert.True(pool.TryQueue(() => ledger.Mark(id)));
        }

        Assert.False(pool.TryQueue(() => { }));
        Assert.False(pool.TryQueue(static _ => { }, null));
        Assert.False(pool.TryQueue(() => { }, new CancellationTokenSource().Token));

        blocked.Release();
        ledger.WaitAll("the three accepted items");
        Bounded.Until(() => pool.TryQueue(() => { }), "room in the queue again");
        ledger.AssertEachExactlyOnce();
    }

    [Fact]
    public void Queue_QueueFull_BlocksTheProducerUntilThereIsRoom()
    {
        var ledger = new Ledger(3);
        using SlimThreadPool pool = TestPools.Create(workers: 1, options => options.BoundedCapacity = 2);
        using var blocked = new BlockedWorkers(pool);
        pool.Queue(() => ledger.Mark(0));
        pool.Queue(() => ledger.Mark(1));

        using var queued = new ManualResetEventSlim();
        var producer = new Thread(() =>
        {
            pool.Queue(() => ledger.Mark(2));
            queued.Set();
        });
        producer.Start();

        // Blocked, not refused: it is still waiting after a while (this cannot fail by slowness).
        Assert.False(queued.Wait(TimeSpan.FromMilliseconds(200)));
        blocked.Release();
        Bounded.Wait(queued, "the blocked producer to get room");
        ledger.WaitAll("all three items");
        ledger.AssertEachExactlyOnce();
        Assert.True(producer.Join(Bounded.Timeout));
    }

    [Fact]
    public void Queue_QueueFullOnOwnWorker_RunsTheItemInline()
    {
        using SlimThreadPool pool = TestPools.Create(workers: 1, options => options.BoundedCapacity = 1);
        int outerThread = -1;
        int inlineThread = -2;
        bool ranBeforeOuterReturned = false;

        Task outer = pool.Run(() =>
        {
            outerThread = Environment.CurrentManagedThreadId;
            Assert.True(pool.TryQueue(() => { })); // fills the only slot; this worker is busy here
            bool inlineRan = false;
            pool.Queue(() =>
            {
                inlineThread = Environment.CurrentManagedThreadId;
                inlineRan = true;
            });
            ranBeforeOuterReturned = inlineRan;
        });

        Bounded.Wait(outer, "the outer item");
        Assert.True(ranBeforeOuterReturned);
        Assert.Equal(outerThread, inlineThread);
    }

    [Fact]
    public void Queue_ItemRequeuesItselfIntoAFullQueue_InlineNestingIsBounded()
    {
        // A worker's Queue into a full queue runs the item inline; an item that keeps re-queueing itself would nest
        // without end (a stack overflow). Past a bound the item is queued over capacity instead.
        const int Steps = 300;
        using SlimThreadPool pool = TestPools.Create(workers: 1, o => o.BoundedCapacity = 1);
        int depth = 0, deepest = 0, remaining = Steps;
        using var done = new ManualResetEventSlim();
        Action step = null!;
        step = () =>
        {
            deepest = Math.Max(deepest, ++depth);
            if (Interlocked.Decrement(ref remaining) > 0)
            {
                pool.TryQueue(() => { }); // keep the one slot taken
                pool.Queue(step);
            }
            else
            {
                done.Set();
            }

            depth--;
        };

        pool.Queue(step);

        Bounded.Wait(done, "every step to run");
        Assert.InRange(deepest, 1, 32);
    }

    [Fact]
    public async Task QueueAsync_QueueFull_CompletesOnceThereIsRoom()
    {
        var ledger = new Ledger(2);
        using SlimThreadPool pool = TestPools.Create(workers: 1, options => options.BoundedCapacity = 1);
        var blocked = new BlockedWorkers(pool);
        await pool.QueueAsync(() => ledger.Mark(0));

        ValueTask waiting = pool.QueueAsync(static s => ((LedgerEntry)s!).Mark(), new LedgerEntry(ledger, 1));
        Assert.False(waiting.IsCompleted);
        blocked.Release();
        await waiting.AsTask().WaitAsync(Bounded.Timeout);

        ledger.WaitAll("both items");
        ledger.AssertEachExactlyOnce();
    }

    [Fact]
    public async Task QueueAsync_TokenCancelledWhileWaiting_EndsCancelledAndNeverRuns()
    {
        bool ran = false;
        using SlimThreadPool pool = TestPools.Create(workers: 1, options => options.BoundedCapacity = 1);
        var blocked = new BlockedWorkers(pool);
        pool.Queue(() => { });
        using var cancellation = new CancellationTokenSource();

        ValueTask waiting = pool.QueueAsync(() => ran = true, cancellation.Token);
        await cancellation.CancelAsync();

        await Assert.ThrowsAnyAsync<OperationCanceledException>(() => waiting.AsTask().WaitAsync(Bounded.Timeout));
        blocked.Release();
        await pool.WaitForIdleAsync().WaitAsync(Bounded.Timeout);
        Assert.False(ran);
    }

    [Fact]
    public async Task QueueAsync_Unbounded_CompletesSynchronously()
    {
        var ledger = new Ledger(3);
        using SlimThreadPool pool = TestPools.Create();

        ValueTask first = pool.QueueAsync(() => ledger.Mark(0));
        ValueTask second = pool.QueueAsync(static s => ((LedgerEntry)s!).Mark(), new LedgerEntry(ledger, 1));
        ValueTask third = pool.QueueAsync(new MarkItem(ledger, 2));

        Assert.True(first.IsCompletedSuccessfully && second.IsCompletedSuccessfully && third.IsCompletedSuccessfully);
        await first;
        await second;
        await third;
        ledger.WaitAll("the three items");
    }

    [Fact]
    public async Task Shutdown_ProducersWaitingForRoom_AreRefusedAndTheirItemsNeverRun()
    {
        int ran = 0;
        SlimThreadPool pool = TestPools.Create(workers: 1, options => options.BoundedCapacity = 1);
        var blocked = new BlockedWorkers(pool);
        pool.Queue(() => Interlocked.Increment(ref ran));
        ValueTask waitingAsync = pool.QueueAsync(() => Interlocked.Increment(ref ran));
        Exception? blockingFailure = null;
        var producer = new Thread(() =>
        {
            try
            {
                pool.Queue(() => Interlocked.Increment(ref ran));
            }
            catch (ObjectDisposedException exception)
            {
                blockingFailure = exception;
            }
        });
        producer.Start();
        Bounded.Until(() => producer.ThreadState.HasFlag(ThreadState.WaitSleepJoin), "the producer to block");

        Task<ShutdownResult> shutdown = pool.ShutdownAsync(ShutdownMode.Drain);
        await Assert.ThrowsAsync<ObjectDisposedException>(() => waitingAsync.AsTask().WaitAsync(Bounded.Timeout));
        Assert.True(producer.Join(Bounded.Timeout));
        blocked.Release();
        await shutdown.WaitAsync(Bounded.Timeout);

        Assert.IsType<ObjectDisposedException>(blockingFailure);
        Assert.Equal(1, ran); // only the item accepted before shutdown
    }

    [Fact]
    public void Queue_ProducerOutrunsWorkers_QueueLengthNeverExceedsTheCapacity()
    {
        const int Capacity = 64;
        int items = StressSize.Pick(quick: 20_000, longRun: 2_000_000);
        var ledger = new Ledger(items);
        using SlimThreadPool pool = TestPools.Create(workers: 1, options => options.BoundedCapacity = Capacity);
        int maxSeen = 0;

        for (int i = 0; i < items; i++)
        {
            pool.Queue(static s =>
            {
                Thread.SpinWait(50); // slower than queueing, so the producer keeps hitting the bound
                ((LedgerEntry)s!).Mark();
            }, new LedgerEntry(ledger, i));
            maxSeen = Math.Max(maxSeen, pool.PendingWorkItemCount);
        }

        ledger.WaitAll("every item");
        ledger.AssertEachExactlyOnce();
        Assert.InRange(maxSeen, 1, Capacity);
    }

    public static TheoryData<WorkQueueKind, IdleWaitKind> Configurations() => TestPools.QueueAndIdleWaits();

    /// <summary>
    /// A High group's turns go through the High lane; workers also take High items straight from the lane, which leaves
    /// their tickets behind. Tickets are issued only while no more are outstanding than items are counted, so they never
    /// outnumber the turns that waited: here at most 2 entries (before: 13-24 here, each holding a capacity slot; 86,000-94,000
    /// with a bound of 100 in the run, before group items held slots).
    /// </summary>
    [Theory]
    [MemberData(nameof(Configurations))]
    public void GroupQueue_HighGroupWithShortTurns_PoolQueueStaysWithinTheBound(WorkQueueKind queue, IdleWaitKind idleWait)
    {
        const int Capacity = 100, MaxTurns = 2;
        int items = StressSize.Pick(quick: 60_000, longRun: 400_000);
        var ledger = new Ledger(items);
        using SlimThreadPool pool = TestPools.Create(workers: 2, options =>
        {
            options.BoundedCapacity = Capacity;
            options.Queue = queue;
            options.IdleWait = idleWait;
        });
        using SlimThreadPoolGroup group = pool.CreateGroup(new SlimGroupOptions { MaxConcurrency = MaxTurns, MaxItemsPerTurn = 4, Priority = WorkItemPriority.High });
        int maxSeen = 0;
        for (int i = 0; i < items; i++)
        {
            group.Queue(static s =>
            {
                Thread.SpinWait(100); // slower than queueing: the group keeps items waiting, so its turns yield every 4
                ((LedgerEntry)s!).Mark();
            }, new LedgerEntry(ledger, i));
            maxSeen = Math.Max(maxSeen, pool.PendingWorkItemCount);
        }

        ledger.WaitAll("every item");
        ledger.AssertEachExactlyOnce();
        Assert.True(maxSeen <= MaxTurns, $"the pool's queue held {maxSeen} entries (bound {Capacity}); the group's High lane never holds more than its {MaxTurns} turns, and no more tickets may wait than that");
        Bounded.Until(() => pool.PendingWorkItemCount == 0, "the tickets left behind to be run");
    }

    [Fact]
    public void Queue_Unbounded_QueueGrowsPastWhatABoundWouldAllow()
    {
        // The control for the test above: without a bound the same producer does build a long queue, so the
        // bound is what kept it short there.
        const int Items = 5_000;
        var ledger = new Ledger(Items);
        using SlimThreadPool pool = TestPools.Create(workers: 1);
        using var blocked = new BlockedWorkers(pool);
        for (int i = 0; i < Items; i++)
        {
            pool.Queue(static s => ((LedgerEntry)s!).Mark(), new LedgerEntry(ledger, i));
        }

        Assert.True(pool.PendingWorkItemCount > 64);
        blocked.Release();
        ledger.WaitAll("every item");
    }

    [Fact]
    public void Continuations_QueueFull_AreNeverRefused()
    {
        using SlimThreadPool pool = TestPools.Create(workers: 1, options => options.BoundedCapacity = 1);
        using var blocked = new BlockedWorkers(pool);
        pool.Queue(() => { });

        // The queue is full, yet tasks and SynchronizationContext posts still go in (over the bound).
        Task task = Task.Factory.StartNew(() => { }, CancellationToken.None, TaskCreationOptions.None, pool.TaskScheduler);
        using var posted = new ManualResetEventSlim();
        pool.SynchronizationContext.Post(_ => posted.Set(), null);

        blocked.Release();
        Bounded.Wait(task, "the task queued over the bound");
        Bounded.Wait(posted, "the post queued over the bound");
    }

    private sealed class MarkItem(Ledger ledger, int id) : IWorkItem
    {
        public void Execute() => ledger.Mark(id);
    }

    [Fact]
    public void GroupTryQueue_PoolBoundedAndItsWorkersBlocked_AcceptsNoMoreThanTheBoundThenEveryAcceptedItemRuns()
    {
        using SlimThreadPool pool = TestPools.Create(1, o => o.BoundedCapacity = 10);
        using SlimThreadPoolGroup group = pool.CreateGroup(new SlimGroupOptions { MaxConcurrency = 2 });
        int accepted = 0, ran = 0;
        using (var blocked = new BlockedWorkers(pool))
        {
            for (int i = 0; i < 100_000; i++)
            {
                if (group.TryQueue(() => Interlocked.Increment(ref ran)))
                {
                    accepted++;
                }
            }

            Assert.InRange(accepted, 1, 10); // the group's items and its turns share the pool's bound
            Assert.False(pool.TryQueue(() => { }), "the pool accepted an item while the group's items filled its bound");
        }

        Bounded.Wait(pool.WaitForIdleAsync(), "the accepted items");
        Assert.Equal(accepted, Volatile.Read(ref ran));
        Assert.True(group.TryQueue(() => { }), "the group refused an item once the pool had room again");
    }

    [Fact]
    public void GroupQueue_PoolFullFromOutside_WaitsForRoom()
    {
        using SlimThreadPool pool = TestPools.Create(1, o => o.BoundedCapacity = 2);
        using SlimThreadPoolGroup group = pool.CreateGroup();
        using var blocked = new BlockedWorkers(pool);
        group.Queue(() => { }); // with its turn (queued behind the blocked worker), the bound is reached

        using var returned = new ManualResetEventSlim();
        var producer = new Thread(() => { group.Queue(() => { }); returned.Set(); });
        producer.Start();
        Assert.False(returned.Wait(200), "a group's Queue into a full pool returned without waiting for room");
        blocked.Release();
        Bounded.Wait(returned, "the waiting Queue once the pool had room");
        Assert.True(producer.Join(Bounded.Timeout));
    }
}
