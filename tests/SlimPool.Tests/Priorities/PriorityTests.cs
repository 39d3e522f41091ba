using System.Collections.Concurrent;
using System.Diagnostics;
using SlimPool.Queues;
using SlimPool.Tests.Infrastructure;

namespace SlimPool.Tests.Priorities;

/// <summary>High before Normal before Low; Low ages instead of starving; lanes in shutdown; on every queue × idle wait.</summary>
public sealed class PriorityTests
{
    public static TheoryData<WorkQueueKind, IdleWaitKind> Configurations() => TestPools.QueueAndIdleWaits();

    [Theory]
    [MemberData(nameof(Configurations))]
    public void Queue_HighLowAndNormalBehindABlockedWorker_RunHighThenNormalThenLow(WorkQueueKind queue, IdleWaitKind idleWait)
    {
        using SlimThreadPool pool = Create(queue, idleWait, workers: 1, lowDelay: TimeSpan.FromSeconds(30));
        var order = new ConcurrentQueue<string>();
        using var done = new CountdownEvent(30);
        using var blocked = new BlockedWorkers(pool);

        for (int i = 0; i < 10; i++)
        {
            int id = i;
            pool.Queue(() => { order.Enqueue($"low {id}"); done.Signal(); }, WorkItemPriority.Low);
            pool.Queue(s => { order.Enqueue($"normal {s}"); done.Signal(); }, id, WorkItemPriority.Normal);
            Assert.True(pool.TryQueue(new Recorder(order, done, $"high {id}"), WorkItemPriority.High));
        }

        blocked.Release();
        Bounded.Wait(done, "the thirty items");
        string[] seen = [.. order];
        Assert.Equal(Enumerable.Range(0, 10).Select(i => $"high {i}"), seen[..10]);
        // One worker: items from one outside thread keep their order on every queue.
        Assert.Equal(Enumerable.Range(0, 10).Select(i => $"normal {i}"), seen[10..20]);
        Assert.Equal(Enumerable.Range(0, 10).Select(i => $"low {i}"), seen[20..]);
    }

    [Theory]
    [MemberData(nameof(Configurations))]
    public void Queue_LowUnderAFloodThatNeverEnds_RunsAfterItsMaxDelay(WorkQueueKind queue, IdleWaitKind idleWait)
    {
        using SlimThreadPool pool = Create(queue, idleWait, workers: 2, lowDelay: TimeSpan.FromMilliseconds(20));
        using var stop = new CancellationTokenSource();
        var lowRan = new TaskCompletionSource<TimeSpan>(TaskCreationOptions.RunContinuationsAsynchronously);

        // Eight chains of Normal items that queue their successors (to the worker's own deque, with work stealing): the
        // queue is never empty while they run, so a Low item waits for its aging alone.
        void Flood(object? _)
        {
            Thread.SpinWait(50);
            if (!stop.IsCancellationRequested)
            {
                pool.Queue(static s => ((Action<object?>)s!)(null), (Action<object?>)Flood);
            }
        }

        for (int i = 0; i < 8; i++)
        {
            pool.Queue(Flood, null);
        }

        Thread.Sleep(20);
        var queuedAt = Stopwatch.StartNew();
        pool.Queue(() => lowRan.SetResult(queuedAt.Elapsed), WorkItemPriority.Low);
        TimeSpan waited = Bounded.Result(lowRan.Task, "the low item under the flood");
        stop.Cancel();
        Assert.True(waited >= TimeSpan.FromMilliseconds(15), $"the low item ran after {waited.TotalMilliseconds:F1} ms, before its 20 ms delay, while other work waited");
    }

    [Theory]
    [MemberData(nameof(Configurations))]
    public void Queue_LowDeferredWhileANormalItemWaitsInABusyWorkersOwnQueue_TheFreeWorkerTakesTheNormalItemFirst(WorkQueueKind queue, IdleWaitKind idleWait)
    {
        using SlimThreadPool pool = Create(queue, idleWait, workers: 2, lowDelay: TimeSpan.FromSeconds(2));
        var order = new ConcurrentQueue<string>();
        var normalQueuedAt = new TaskCompletionSource<Stopwatch>(TaskCreationOptions.RunContinuationsAsynchronously);
        var normalStartedAfter = new TaskCompletionSource<TimeSpan>(TaskCreationOptions.RunContinuationsAsynchronously);
        using var lowRan = new ManualResetEventSlim();
        using var release = new ManualResetEventSlim();

        pool.Queue(() => Thread.Sleep(30)); // the worker that will be free first
        pool.Queue(() =>
        {
            // Queued on this worker (its own deque, with work stealing), which then stays busy.
            pool.Queue(() =>
            {
                order.Enqueue("normal");
                normalStartedAfter.SetResult(normalQueuedAt.Task.Result.Elapsed);
            });
            normalQueuedAt.SetResult(Stopwatch.StartNew());
            release.Wait(Bounded.Timeout);
        });

        Bounded.Result(normalQueuedAt.Task, "the normal item to be queued");
        pool.Queue(() => { order.Enqueue("low"); lowRan.Set(); }, WorkItemPriority.Low);

        TimeSpan waited = Bounded.Result(normalStartedAfter.Task, "the normal item");
        Bounded.Wait(lowRan, "the low item");
        release.Set();
        Assert.Equal(["normal", "low"], order);
        Assert.True(waited < TimeSpan.FromSeconds(1), $"the normal item waited {waited.TotalMilliseconds:F0} ms beside a free worker that kept deferring the low item");
    }

    [Fact]
    public void Queue_LowOnAnIdlePool_RunsAtOnce()
    {
        using SlimThreadPool pool = Create(WorkQueueKind.WorkStealing, IdleWaitKind.SpinThenPark, workers: 2, lowDelay: TimeSpan.FromSeconds(30));
        var ran = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        pool.Queue(() => ran.SetResult(), WorkItemPriority.Low);
        Bounded.Wait(ran.Task, "a low item with nothing else queued (its 30 s delay must not apply)");
    }

    [Fact]
    public void Abandon_WithHighAndLowItemsQueued_HandsEachBackOnce()
    {
        SlimThreadPool pool = Create(WorkQueueKind.WorkStealing, IdleWaitKind.SpinThenPark, workers: 1, lowDelay: TimeSpan.FromSeconds(30));
        var ledger = new Ledger(40);
        using var blocked = new BlockedWorkers(pool); // before the High items, which would otherwise run first
        for (int i = 0; i < 40; i++)
        {
            int id = i;
            pool.Queue(() => ledger.Mark(id), i % 2 == 0 ? WorkItemPriority.High : WorkItemPriority.Low);
        }

        Task<ShutdownResult> shutdown = pool.ShutdownAsync(ShutdownMode.Abandon);
        blocked.Release();
        ShutdownResult result = Bounded.Result(shutdown, "the abandon");

        Assert.Equal(40, result.AbandonedCount);
        Assert.All(result.AbandonedItems, item => Assert.IsType<Action>(item.Callback, exactMatch: false));
        foreach (AbandonedWorkItem item in result.AbandonedItems)
        {
            item.Run();
        }

        ledger.AssertEachExactlyOnce();
    }

    [Fact]
    public void Dispose_WithHighAndLowItemsQueued_RunsEveryOne()
    {
        SlimThreadPool pool = Create(WorkQueueKind.LockFree, IdleWaitKind.SpinThenPark, workers: 2, lowDelay: TimeSpan.FromMilliseconds(5));
        var ledger = new Ledger(3_000);
        for (int i = 0; i < 3_000; i++)
        {
            int id = i;
            pool.Queue(() => ledger.Mark(id), (WorkItemPriority)((i % 3) - 1));
        }

        Bounded.Run(pool.Dispose, "Dispose");
        ledger.AssertEachExactlyOnce();
    }

    [Fact]
    public void HighPriorityGroup_BehindNormalItems_RunsFirst()
    {
        using SlimThreadPool pool = Create(WorkQueueKind.WorkStealing, IdleWaitKind.SpinThenPark, workers: 1, lowDelay: TimeSpan.FromSeconds(30));
        using SlimThreadPoolGroup urgent = pool.CreateGroup(new SlimGroupOptions { Priority = WorkItemPriority.High });
        var order = new ConcurrentQueue<string>();
        using var done = new CountdownEvent(10);
        using var blocked = new BlockedWorkers(pool);
        for (int i = 0; i < 5; i++)
        {
            int id = i;
            pool.Queue(() => { order.Enqueue($"normal {id}"); done.Signal(); });
        }

        for (int i = 0; i < 5; i++)
        {
            int id = i;
            urgent.Queue(() => { order.Enqueue($"group {id}"); done.Signal(); });
        }

        blocked.Release();
        Bounded.Wait(done, "the ten items");
        Assert.Equal(Enumerable.Range(0, 5).Select(i => $"group {i}"), order.Take(5));
    }

    [Theory]
    [MemberData(nameof(Configurations))]
    public void Queue_NormalItemBesideAHighChainThatRequeuesItself_StartsWithinAFewFairLooks(WorkQueueKind queue, IdleWaitKind idleWait)
    {
        // A worker takes High items straight from their lane before it looks at the queue; a High item that queues its
        // successor keeps the lane full, so without a fair look at the queue now and then a Normal item waits for the
        // whole chain.
        using SlimThreadPool pool = Create(queue, idleWait, workers: 1, lowDelay: TimeSpan.FromSeconds(30));
        var chain = new HighChain(steps => pool.Queue(steps, WorkItemPriority.High), steps: 2_000_000);
        AssertNormalStartsBesideTheChain(pool, chain, stepsPerLook: 1);
    }

    [Theory]
    [MemberData(nameof(Configurations))]
    public void Queue_NormalItemQueuedOnTheWorkerBesideAHighChain_StartsWithinAFewFairLooks(WorkQueueKind queue, IdleWaitKind idleWait)
    {
        // Queued from the chain's own worker, the Normal item waits in that worker's slot with work stealing, and one
        // worker has no sibling to steal it; the High chain's ticket always waits in the shared queue, which a fair look
        // takes first (found by an adversarial review: it waited for the whole chain).
        using SlimThreadPool pool = Create(queue, idleWait, workers: 1, lowDelay: TimeSpan.FromSeconds(30));
        const int Steps = 300_000;
        long stepsRun = 0, queuedAt = -1;
        var normalRan = new TaskCompletionSource<long>(TaskCreationOptions.RunContinuationsAsynchronously);
        var chainDone = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);

        void Step()
        {
            long run = Interlocked.Increment(ref stepsRun);
            if (run == 1000)
            {
                pool.Queue(() => normalRan.TrySetResult(Volatile.Read(ref stepsRun)));
                Volatile.Write(ref queuedAt, run);
            }

            if (run >= Steps || normalRan.Task.IsCompleted)
            {
                chainDone.TrySetResult();
                return;
            }

            pool.Queue(Step, WorkItemPriority.High);
        }

        pool.Queue(Step, WorkItemPriority.High);
        Bounded.Wait(chainDone.Task, "the chain");
        long ranAt = Bounded.Result(normalRan.Task, "the Normal item");
        long bound = 4L * WorkStealingWorkQueue.FairInterval;
        Assert.True(ranAt - Volatile.Read(ref queuedAt) <= bound, $"the Normal item waited while {ranAt - queuedAt} High steps ran (bound {bound}); the chain had {Steps} steps");
    }

    [Theory]
    [MemberData(nameof(Configurations))]
    public void Dispose_LowThenNormalItemsQueued_TheDrainRunsTheLowItemLast(WorkQueueKind queue, IdleWaitKind idleWait)
    {
        // A drain keeps the priorities: a Low item still waits behind the Normal items queued (found by an adversarial
        // review of a change that stopped Low tickets deferring once the pool shut down).
        SlimThreadPool pool = Create(queue, idleWait, workers: 1, lowDelay: TimeSpan.FromSeconds(30));
        var order = new ConcurrentQueue<string>();
        var blocked = new BlockedWorkers(pool);
        pool.Queue(() => order.Enqueue("low"), WorkItemPriority.Low);
        for (int i = 0; i < 5; i++)
        {
            int id = i;
            pool.Queue(() => order.Enqueue($"normal {id}"));
        }

        Task dispose = Task.Run(pool.Dispose);
        Bounded.Until(() => !pool.TryQueue(static () => { }), "the shutdown to begin");
        blocked.Release();
        Bounded.Wait(dispose, "Dispose");
        Assert.Equal(["normal 0", "normal 1", "normal 2", "normal 3", "normal 4", "low"], order.ToArray());
    }

    [Fact]
    public void GroupQueue_NormalItemBesideAHighGroupsSelfRequeuingChain_StartsWithinAFewFairLooks()
    {
        // The group's turn queues itself again at the end of each quantum, at High priority, so the lane is never empty.
        using SlimThreadPool pool = Create(WorkQueueKind.WorkStealing, IdleWaitKind.SpinThenPark, workers: 1, lowDelay: TimeSpan.FromSeconds(30));
        using SlimThreadPoolGroup urgent = pool.CreateGroup(new SlimGroupOptions { Priority = WorkItemPriority.High, MaxItemsPerTurn = 8 });
        var chain = new HighChain(steps => urgent.Queue(steps), steps: 2_000_000);
        AssertNormalStartsBesideTheChain(pool, chain, stepsPerLook: 8);
    }

    private static void AssertNormalStartsBesideTheChain(SlimThreadPool pool, HighChain chain, int stepsPerLook)
    {
        chain.Start();
        Bounded.Wait(chain.Running, "the chain to run");
        var normalRan = new TaskCompletionSource<long>(TaskCreationOptions.RunContinuationsAsynchronously);
        pool.Queue(() => normalRan.SetResult(chain.StepsRun));
        long queuedAt = chain.StepsRun; // after the queue call: the item is in the queue from here on
        long ranAt = Bounded.Result(normalRan.Task, "the Normal item beside the High chain");
        chain.Stop();
        Bounded.Wait(chain.Stopped, "the chain to stop");

        // Each look either takes a High item or, once every FairInterval looks, an item from the queues first (with work
        // stealing, a fair look and a look at the worker's own queues in turn); the Normal item is behind at most a couple
        // of tickets, and a work-stealing worker may first move it into its batch.
        long bound = 6L * WorkStealingWorkQueue.FairInterval * stepsPerLook;
        Assert.True(ranAt - queuedAt <= bound, $"the Normal item waited while {ranAt - queuedAt} High steps ran (bound {bound}); the chain had run {ranAt} of its steps");
    }

    // A High chain: each step queues the next until it has run `steps` of them or is stopped.
    private sealed class HighChain(Action<Action> queue, int steps)
    {
        private long _stepsRun;
        private volatile bool _stop;

        public ManualResetEventSlim Running { get; } = new();

        public ManualResetEventSlim Stopped { get; } = new();

        public long StepsRun => Volatile.Read(ref _stepsRun);

        public void Start() => queue(Step);

        public void Stop() => _stop = true;

        private void Step()
        {
            long run = Interlocked.Increment(ref _stepsRun);
            if (run == 1000)
            {
                Running.Set();
            }

            if (_stop || run >= steps)
            {
                Running.Set();
                Stopped.Set();
                return;
            }

            queue(Step);
        }
    }

    [Fact]
    public void QueueWithPriority_BadArguments_ThrowNamingTheArgument()
    {
        using SlimThreadPool pool = Create(WorkQueueKind.WorkStealing, IdleWaitKind.SpinThenPark, workers: 1, lowDelay: TimeSpan.FromSeconds(1));
        Assert.Equal("priority", Assert.Throws<ArgumentOutOfRangeException>(() => pool.Queue(() => { }, (WorkItemPriority)5)).ParamName);
        Assert.Equal("callback", Assert.Throws<ArgumentNullException>(() => pool.TryQueue((Action)null!, WorkItemPriority.High)).ParamName);
        Assert.Equal("LowPriorityMaxDelay", Assert.Throws<ArgumentOutOfRangeException>(() => new SlimThreadPoolOptions { LowPriorityMaxDelay = TimeSpan.Zero }).ParamName);
        pool.Dispose();
        Assert.Throws<ObjectDisposedException>(() => pool.Queue(() => { }, WorkItemPriority.Low));
        Assert.False(pool.TryQueue(() => { }, WorkItemPriority.High));
    }

    private static SlimThreadPool Create(WorkQueueKind queue, IdleWaitKind idleWait, int workers, TimeSpan lowDelay, [System.Runtime.CompilerServices.CallerMemberName] string name = "") =>
        TestPools.Create(queue, idleWait, workers, o => o.LowPriorityMaxDelay = lowDelay, name);

    private sealed class Recorder(ConcurrentQueue<string> order, CountdownEvent done, string name) : IWorkItem
    {
        public void Execute()
        {
            order.Enqueue(name);
            done.Signal();
        }
    }
}
