using SlimPool.Tests.Infrastructure;

namespace SlimPool.Tests.Async;

public sealed class AsyncIntegrationTests : IDisposable
{
    private const string Prefix = "AsyncTest";
    private readonly SlimThreadPool _pool = new(new SlimThreadPoolOptions { WorkerCount = 2, Name = Prefix });

    public void Dispose() => _pool.Dispose();

    private static bool OnPool() => Thread.CurrentThread.Name?.StartsWith(Prefix + " #", StringComparison.Ordinal) == true;

    /// <summary>
    /// Without the pool's SynchronizationContext an await inside <c>pool.Run</c> resumes through the pool's TaskScheduler. A
    /// continuation that arrives after an abandon began cannot be refused with an exception (from an await it reaches
    /// Task.ThrowAsync and ends the process): it runs on the built-in pool, as a late Post does, and the flow completes. A
    /// new task on the scheduler after the shutdown does the same; <c>pool.Run</c> still refuses.
    /// </summary>
    [Fact]
    public async Task TaskScheduler_ContinuationAndTaskAfterAnAbandon_RunOnTheBuiltInPoolInsteadOfThrowing()
    {
        var pool = new SlimThreadPool(new SlimThreadPoolOptions { WorkerCount = 1, UseSynchronizationContext = false, StarvationTimeout = Timeout.InfiniteTimeSpan });
        var resume = new TaskCompletionSource(); // continuations run on the thread that completes it
        using var suspended = new ManualResetEventSlim();
        bool resumedOnBuiltInPool = false;
        Task flow = pool.Run(async () =>
        {
            suspended.Set();
            await resume.Task; // TaskScheduler.Current is the pool's: the continuation goes to QueueTask
            resumedOnBuiltInPool = Thread.CurrentThread.IsThreadPoolThread;
        });
        Bounded.Wait(suspended, "the flow to reach its await");
        ShutdownResult result = await pool.ShutdownAsync(ShutdownMode.Abandon).WaitAsync(Bounded.Timeout);
        Assert.Equal(0, result.AbandonedCount);

        resume.SetResult();
        await flow.WaitAsync(Bounded.Timeout);
        Assert.True(resumedOnBuiltInPool);

        Task<bool> late = Task.Factory.StartNew(() => Thread.CurrentThread.IsThreadPoolThread, CancellationToken.None, TaskCreationOptions.None, pool.TaskScheduler);
        Assert.True(await late.WaitAsync(Bounded.Timeout));
        Assert.Throws<ObjectDisposedException>(() => pool.Run(static () => { }).Wait(0));
    }

    [Fact]
    public void Run_AsyncFlow_EveryContinuationRunsOnThePool()
    {
        Task<bool[]> flow = _pool.Run(async () =>
        {
            var onPool = new List<bool> { OnPool() };
            await Task.Yield();
            onPool.Add(OnPool());
            await Task.Delay(5); // completes on a timer thread; the continuation is posted back to the pool
            onPool.Add(OnPool());
            await Task.Run(() => { }); // completes on the built-in pool
            onPool.Add(OnPool());
            return onPool.ToArray();
        });

        Assert.All(Bounded.Result(flow, "the async flow"), Assert.True);
    }

    [Fact]
    public void Run_InsideScheduledWork_TaskSchedulerCurrentIsThePools()
    {
        TaskScheduler seen = Bounded.Result(_pool.Run(() => TaskScheduler.Current), "the task");

        Assert.Same(_pool.TaskScheduler, seen);
        Assert.Equal(_pool.WorkerCount, _pool.TaskScheduler.MaximumConcurrencyLevel);
    }

    [Fact]
    public void TaskScheduler_ManyTasks_ConcurrencyNeverExceedsWorkerCount()
    {
        int running = 0, peak = 0;
        Task[] tasks = [.. Enumerable.Range(0, 200).Select(_ => Task.Factory.StartNew(() =>
        {
            int now = Interlocked.Increment(ref running);
            int seen;
            while ((seen = Volatile.Read(ref peak)) < now && Interlocked.CompareExchange(ref peak, now, seen) != seen)
            {
            }

            Thread.SpinWait(2_000);
            Interlocked.Decrement(ref running);
        }, CancellationToken.None, TaskCreationOptions.None, _pool.TaskScheduler))];

        Bounded.Wait(Task.WhenAll(tasks), "200 tasks");
        Assert.InRange(Volatile.Read(ref peak), 1, _pool.WorkerCount);
    }

    [Fact]
    public void TaskScheduler_WaitedFromOffThePool_IsNeverInlinedOnTheWaiter()
    {
        using var gate = new ManualResetEventSlim(false);
        _pool.Queue(() => gate.Wait(Bounded.Timeout)); // occupy both workers so the task stays queued
        _pool.Queue(() => gate.Wait(Bounded.Timeout));
        Task<bool> task = Task.Factory.StartNew(OnPool, CancellationToken.None, TaskCreationOptions.None, _pool.TaskScheduler);

        // Release the workers from a thread of our own: a Timer would need the built-in pool, which parallel test
        // classes (each blocking a pool thread in Wait) can starve for a long time on two cores.
        var releaser = new Thread(() =>
        {
            Thread.Sleep(100);
            gate.Set();
        });
        releaser.Start();
#pragma warning disable xUnit1031 // the blocking Wait is the point: it asks the scheduler to inline the task here
        Assert.True(task.Wait(Bounded.Timeout)); // the scheduler must refuse: this thread is not a pool worker
        Assert.True(task.Result, "the task ran on the waiting thread instead of a pool worker");
#pragma warning restore xUnit1031
        Assert.True(releaser.Join(Bounded.Timeout));
    }

    [Fact]
    public void TaskScheduler_LongRunningTask_GetsItsOwnThreadNamedAfterThePool()
    {
        Task<string?> task = Task.Factory.StartNew(() => OnPool() ? null : Thread.CurrentThread.Name, CancellationToken.None, TaskCreationOptions.LongRunning, _pool.TaskScheduler);

        Assert.Equal($"{Prefix} long-running task", Bounded.Result(task, "the long-running task"));
    }

    [Fact]
    public void Run_ChainOf100000Awaits_CompletesWithoutStackOverflow()
    {
        Task<int> flow = _pool.Run(async () =>
        {
            int steps = 0;
            for (int i = 0; i < 100_000; i++)
            {
                await Task.Yield();
                steps++;
            }

            return steps;
        });

        Assert.Equal(100_000, Bounded.Result(flow, "100,000 awaits"));
    }

    [Fact]
    public void Run_FlowsAwaitingEachOther_CompleteWithoutStackOverflow()
    {
        // 10,000 flows, each awaiting the previous one's completion: continuations are posted, not inlined deep.
        var gates = Enumerable.Range(0, 10_001).Select(_ => new TaskCompletionSource(TaskCreationOptions.None)).ToArray();
        Task[] flows = [.. Enumerable.Range(0, 10_000).Select(i => _pool.Run(async () =>
        {
            await gates[i].Task;
            gates[i + 1].SetResult();
        }))];

        gates[0].SetResult();
        Bounded.Wait(Task.WhenAll(flows), "10,000 chained flows");
    }

    [Fact]
    public void Run_ThrowingFlow_FaultsTheTaskWithTheException()
    {
        Task flow = _pool.Run(async () =>
        {
            await Task.Yield();
            throw new InvalidOperationException("flow failed");
        });

        var error = Assert.Throws<AggregateException>(() => flow.Wait(Bounded.Timeout));
        Assert.Equal("flow failed", Assert.IsType<InvalidOperationException>(error.InnerException).Message);
        Assert.Equal(0, _pool.UnhandledExceptionCount); // the task carries it; the pool's handler does not see it
    }

    [Fact]
    public void Run_CancelledFlow_EndsCancelled()
    {
        using var cancel = new CancellationTokenSource();
        cancel.Cancel();
        Task<int> flow = _pool.Run<int>(async () =>
        {
            await Task.Yield();
            cancel.Token.ThrowIfCancellationRequested();
            return 1;
        });

        Assert.ThrowsAny<Exception>(() => flow.Wait(Bounded.Timeout));
        Assert.True(flow.IsCanceled);
    }

    [Fact]
    public void Run_SyncOverloads_ReturnResultsAndFaults()
    {
        Assert.True(Bounded.Result(_pool.Run(OnPool), "Run(Func<T>)"));
        Task failing = _pool.Run(() => throw new FormatException());
        Assert.IsType<FormatException>(Assert.Throws<AggregateException>(() => failing.Wait(Bounded.Timeout)).InnerException);
    }

    [Fact]
    public void SwitchTo_FromOffThePool_ContinuesOnAWorker()
    {
        async Task<bool> Hop()
        {
            await _pool.SwitchTo();
            return OnPool();
        }

        Assert.True(Bounded.Result(Task.Run(Hop), "the hop"));
    }

    [Fact]
    public void SwitchTo_AlreadyOnThePool_CompletesSynchronouslyUnlessAskedToYield()
    {
        (bool plain, bool yielding) = Bounded.Result(_pool.Run(() => (_pool.SwitchTo().GetAwaiter().IsCompleted, _pool.SwitchTo(alwaysYield: true).GetAwaiter().IsCompleted)), "the check");

        Assert.True(plain);
        Assert.False(yielding);
        Assert.False(_pool.SwitchTo().GetAwaiter().IsCompleted); // off the pool it always queues
    }

    [Fact]
    public void SynchronizationContext_SendOffThePool_RunsOnAWorkerAndWaits()
    {
        bool ranOnPool = false;
        _pool.SynchronizationContext.Send(_ => ranOnPool = OnPool(), null);

        Assert.True(ranOnPool);
        Assert.Throws<NotSupportedException>(() => _pool.SynchronizationContext.Send(_ => throw new NotSupportedException(), null));
    }

    [Fact]
    public void SynchronizationContext_SendOnThePool_RunsInline()
    {
        bool sameThread = Bounded.Result(_pool.Run(() =>
        {
            Thread caller = Thread.CurrentThread;
            Thread? ran = null;
            SynchronizationContext.Current!.Send(_ => ran = Thread.CurrentThread, null);
            return ran == caller;
        }), "the send");

        Assert.True(sameThread);
    }

    [Fact]
    public void UseSynchronizationContext_Off_ItemsStartWithoutAContextAndNoneLeaksIntoTheNext()
    {
        using var pool = new SlimThreadPool(new SlimThreadPoolOptions { WorkerCount = 1, Name = Prefix, UseSynchronizationContext = false });
        var seen = new SynchronizationContext?[2];
        using var done = new CountdownEvent(2);
        pool.Queue(() =>
        {
            seen[0] = SynchronizationContext.Current;
            SynchronizationContext.SetSynchronizationContext(new SynchronizationContext()); // left behind on purpose
            done.Signal();
        });
        pool.Queue(() =>
        {
            seen[1] = SynchronizationContext.Current;
            done.Signal();
        });

        Bounded.Wait(done, "both items");
        Assert.Null(seen[0]);
        Assert.Null(seen[1]);
    }

    [Fact]
    public void UseSynchronizationContext_Off_AnAwaitResumesThroughTaskSchedulerCurrent()
    {
        using var pool = new SlimThreadPool(new SlimThreadPoolOptions { WorkerCount = 2, Name = Prefix, UseSynchronizationContext = false });
        var scheduler = new CountingScheduler(pool);
        Task<bool> flow = Task.Factory.StartNew(async () =>
        {
            await Task.Delay(5); // completes on a timer thread: no context, so the continuation goes to TaskScheduler.Current
            return TaskScheduler.Current == scheduler && OnPool();
        }, CancellationToken.None, TaskCreationOptions.None, scheduler).Unwrap();

        Assert.True(Bounded.Result(flow, "the flow"));
        Assert.Equal(2, scheduler.Queued); // the start and the continuation after the await
    }

    [Fact]
    public void UseSynchronizationContext_Default_IsOnAndItemsRunUnderThePoolsContext()
    {
        Assert.True(new SlimThreadPoolOptions().UseSynchronizationContext);
        Assert.Same(_pool.SynchronizationContext, Bounded.Result(_pool.Run(() => SynchronizationContext.Current), "the item"));
    }

    // A scheduler of the kind an actor runtime brings: it counts what it is given and runs it on the pool.
    private sealed class CountingScheduler(SlimThreadPool pool) : TaskScheduler
    {
        private int _queued;

        public int Queued => Volatile.Read(ref _queued);

        protected override void QueueTask(Task task)
        {
            Interlocked.Increment(ref _queued);
            pool.Queue(static state => ((CountingScheduler)((object[])state!)[0]).TryExecuteTask((Task)((object[])state!)[1]), new object[] { this, task });
        }

        protected override bool TryExecuteTaskInline(Task task, bool taskWasPreviouslyQueued) => false;

        protected override IEnumerable<Task> GetScheduledTasks() => [];
    }

    [Fact]
    public void Run_NullDelegates_ThrowArgumentNullException()
    {
        Assert.Equal("action", Assert.Throws<ArgumentNullException>(() => { _ = _pool.Run((Action)null!); }).ParamName);
        Assert.Equal("function", Assert.Throws<ArgumentNullException>(() => { _ = _pool.Run((Func<int>)null!); }).ParamName);
        Assert.Equal("function", Assert.Throws<ArgumentNullException>(() => { _ = _pool.Run((Func<Task>)null!); }).ParamName);
        Assert.Equal("function", Assert.Throws<ArgumentNullException>(() => { _ = _pool.Run((Func<Task<int>>)null!); }).ParamName);
    }

    [Fact]
    public void Run_AfterDispose_ThrowsObjectDisposedException()
    {
        var pool = new SlimThreadPool(new SlimThreadPoolOptions { WorkerCount = 1 });
        pool.Dispose();

        Assert.Throws<ObjectDisposedException>(() => { _ = pool.Run(() => { }); });
        Assert.Throws<ObjectDisposedException>(() => pool.SwitchTo().GetAwaiter().GetResult());
    }
}
