using System.Collections.Concurrent;
using SlimPool.Tests.Infrastructure;

namespace SlimPool.Tests.Ordering;

/// <summary>
/// Nothing is buried: every accepted item starts within a bounded number of its worker's turns whatever other items
/// do (self-requeuing chains above all), and items from one outside thread start in the order queued on one worker.
/// </summary>
public sealed class StartBoundTests
{
    // Far above the bound (a few hundred turns of 20 µs items), far below "for ever".
    private static readonly TimeSpan s_startBound = TimeSpan.FromSeconds(5);

    public static TheoryData<WorkQueueKind, IdleWaitKind> Configurations() => TestPools.QueueAndIdleWaits();

    [Theory]
    [MemberData(nameof(Configurations))]
    public void Queue_OutsideItemsBehindASelfRequeuingChain_AllStartWhileTheChainRuns(WorkQueueKind queue, IdleWaitKind idleWait)
    {
        using SlimThreadPool pool = TestPools.Create(queue, idleWait, 1);
        using var chain = new Chain(pool);
        using var started = new CountdownEvent(40);
        using (var blocked = new BlockedWorkers(pool))
        {
            pool.Queue(chain.Step, null);
            for (int i = 0; i < 40; i++)
            {
                pool.Queue(() => started.Signal());
            }
        }

        bool all = started.Wait(s_startBound);
        chain.Stop();
        Assert.True(all, $"{started.CurrentCount} of 40 outside items had not started {s_startBound.TotalSeconds} s after a chain began on the only worker ({chain.Steps} chain steps ran)");
    }

    [Theory]
    [MemberData(nameof(Configurations))]
    public void Queue_EveryWorkerRunsAChain_OutsideItemsStillStart(WorkQueueKind queue, IdleWaitKind idleWait)
    {
        using SlimThreadPool pool = TestPools.Create(queue, idleWait, 2);
        using var chain = new Chain(pool);
        using var started = new CountdownEvent(100);
        using (var blocked = new BlockedWorkers(pool))
        {
            pool.Queue(chain.Step, null);
            pool.Queue(chain.Step, null);
            for (int i = 0; i < 100; i++)
            {
                pool.Queue(() => started.Signal());
            }
        }

        bool all = started.Wait(s_startBound);
        chain.Stop();
        Assert.True(all, $"{started.CurrentCount} of 100 outside items had not started {s_startBound.TotalSeconds} s after two chains began ({chain.Steps} chain steps ran)");
    }

    [Theory]
    [MemberData(nameof(Configurations))]
    public void Queue_ItemQueuedFromThePoolBeneathASelfRequeuingChain_Starts(WorkQueueKind queue, IdleWaitKind idleWait)
    {
        using SlimThreadPool pool = TestPools.Create(queue, idleWait, 1);
        using var chain = new Chain(pool);
        using var started = new ManualResetEventSlim();
        pool.Queue(() =>
        {
            pool.Queue(started.Set);       // on the worker: its own deque, with work stealing
            pool.Queue(chain.Step, null);  // and a chain on top of it
        });

        bool ran = started.Wait(s_startBound);
        chain.Stop();
        Assert.True(ran, $"an item queued from the pool under a chain had not started {s_startBound.TotalSeconds} s later ({chain.Steps} chain steps ran)");
    }

    [Theory]
    [MemberData(nameof(Configurations))]
    public void Queue_FromOneOutsideThreadOnOneWorker_StartInQueueOrder(WorkQueueKind queue, IdleWaitKind idleWait)
    {
        using SlimThreadPool pool = TestPools.Create(queue, idleWait, 1);
        var order = new ConcurrentQueue<int>();
        using var done = new CountdownEvent(100);
        using (var blocked = new BlockedWorkers(pool))
        {
            for (int i = 0; i < 100; i++)
            {
                pool.Queue(s => { order.Enqueue((int)s!); done.Signal(); }, i);
            }
        }

        Bounded.Wait(done, "the hundred items");
        Assert.Equal(Enumerable.Range(0, 100), order);
    }

    [Theory]
    [MemberData(nameof(Configurations))]
    public void Queue_OutsideItemsInterleavedWithAChainOnOneWorker_StartInQueueOrder(WorkQueueKind queue, IdleWaitKind idleWait)
    {
        using SlimThreadPool pool = TestPools.Create(queue, idleWait, 1);
        using var chain = new Chain(pool);
        var order = new ConcurrentQueue<int>();
        using var done = new CountdownEvent(200);
        pool.Queue(chain.Step, null);
        for (int i = 0; i < 200; i++)
        {
            pool.Queue(s => { order.Enqueue((int)s!); done.Signal(); }, i);
            if (i % 16 == 0)
            {
                Thread.Sleep(1);
            }
        }

        bool all = done.Wait(s_startBound);
        chain.Stop();
        Assert.True(all, $"{done.CurrentCount} of 200 outside items had not started beside a chain");
        Assert.Equal(Enumerable.Range(0, 200), order);
    }

    [Theory]
    [MemberData(nameof(Configurations))]
    public void Queue_LowNormalHighNormalOnOneWorker_RunHighThenNormalsInOrderThenLow(WorkQueueKind queue, IdleWaitKind idleWait)
    {
        using SlimThreadPool pool = TestPools.Create(1, o => { o.Queue = queue; o.IdleWait = idleWait; o.LowPriorityMaxDelay = TimeSpan.FromSeconds(30); });
        var order = new ConcurrentQueue<string>();
        using var done = new CountdownEvent(4);
        using (var blocked = new BlockedWorkers(pool))
        {
            pool.Queue(() => { order.Enqueue("low"); done.Signal(); }, WorkItemPriority.Low);
            pool.Queue(() => { order.Enqueue("normal 1"); done.Signal(); }, WorkItemPriority.Normal);
            pool.Queue(() => { order.Enqueue("high"); done.Signal(); }, WorkItemPriority.High);
            pool.Queue(() => { order.Enqueue("normal 2"); done.Signal(); }, WorkItemPriority.Normal);
        }

        Bounded.Wait(done, "the four items");
        Assert.Equal(["high", "normal 1", "normal 2", "low"], order);
    }

    // A self-requeuing chain: each step spins ~20 µs and queues its successor from the worker (preferLocal) until stopped.
    private sealed class Chain(SlimThreadPool pool) : IDisposable
    {
        private volatile bool _stopped;
        private long _steps;

        public long Steps => Interlocked.Read(ref _steps);

        public void Step(object? state)
        {
            Interlocked.Increment(ref _steps);
            Thread.SpinWait(400);
            if (!_stopped)
            {
                pool.Queue(Step, state);
            }
        }

        public void Stop() => _stopped = true;

        public void Dispose() => Stop();
    }
}
