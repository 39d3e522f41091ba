using SlimPool.Queues;

namespace SlimPool.Tests.Reliability;

/// <summary>Every public member with each invalid argument, and the exception it must raise.</summary>
public sealed class BadInputTests
{
    public static TheoryData<string, Action, Type, string?> Cases()
    {
        var data = new TheoryData<string, Action, Type, string?>();
        foreach ((string name, Func<IThreadPool> create) in new (string, Func<IThreadPool>)[]
        {
            ("SlimThreadPool", () => new SlimThreadPool(new SlimThreadPoolOptions { WorkerCount = 1 })),
            ("ManagedThreadPool", () => new ManagedThreadPool()),
        })
        {
            data.Add($"{name}.Queue(null Action)", () => Use(create, p => p.Queue((Action)null!)), typeof(ArgumentNullException), "callback");
            data.Add($"{name}.Queue(null Action<object?>, state)", () => Use(create, p => p.Queue((Action<object?>)null!, 1)), typeof(ArgumentNullException), "callback");
            data.Add($"{name}.Queue(null IWorkItem)", () => Use(create, p => p.Queue((IWorkItem)null!)), typeof(ArgumentNullException), "workItem");
            data.Add($"{name}.TryQueue(null Action)", () => Use(create, p => p.TryQueue((Action)null!)), typeof(ArgumentNullException), "callback");
            data.Add($"{name}.TryQueue(null Action<object?>, state)", () => Use(create, p => p.TryQueue((Action<object?>)null!, 1)), typeof(ArgumentNullException), "callback");
            data.Add($"{name}.TryQueue(null IWorkItem)", () => Use(create, p => p.TryQueue((IWorkItem)null!)), typeof(ArgumentNullException), "workItem");
            data.Add($"{name}.Queue after Dispose", () => Disposed(create).Queue(() => { }), typeof(ObjectDisposedException), null);
            data.Add($"{name}.Queue(state) after Dispose", () => Disposed(create).Queue(static _ => { }, null), typeof(ObjectDisposedException), null);
            data.Add($"{name}.Queue(IWorkItem) after Dispose", () => Disposed(create).Queue(new NoOp()), typeof(ObjectDisposedException), null);
            data.Add($"{name}.Queue(null) after Dispose", () => Disposed(create).Queue((Action)null!), typeof(ArgumentNullException), "callback");
        }

        data.Add("new SlimThreadPool(null)", () => _ = new SlimThreadPool(null!), typeof(ArgumentNullException), "options");
        data.Add("QueueFactory returns null", () => _ = new SlimThreadPool(new SlimThreadPoolOptions { QueueFactory = () => null! }), typeof(InvalidOperationException), null);
        data.Add("WorkerCount = 0", () => _ = new SlimThreadPoolOptions { WorkerCount = 0 }, typeof(ArgumentOutOfRangeException), "WorkerCount");
        data.Add("WorkerCount = -1", () => _ = new SlimThreadPoolOptions { WorkerCount = -1 }, typeof(ArgumentOutOfRangeException), "WorkerCount");
        data.Add("WorkerCount = 32768", () => _ = new SlimThreadPoolOptions { WorkerCount = 32768 }, typeof(ArgumentOutOfRangeException), "WorkerCount");
        data.Add("Queue = undefined", () => _ = new SlimThreadPoolOptions { Queue = (WorkQueueKind)99 }, typeof(ArgumentOutOfRangeException), "Queue");
        data.Add("IdleWait = undefined", () => _ = new SlimThreadPoolOptions { IdleWait = (IdleWaitKind)99 }, typeof(ArgumentOutOfRangeException), "IdleWait");
        data.Add("Name = null", () => _ = new SlimThreadPoolOptions { Name = null! }, typeof(ArgumentNullException), "Name");
        data.Add("Name = \"\"", () => _ = new SlimThreadPoolOptions { Name = "" }, typeof(ArgumentException), "Name");
        data.Add("Name = \"  \"", () => _ = new SlimThreadPoolOptions { Name = "  " }, typeof(ArgumentException), "Name");
        data.Add("ThreadPriority = undefined", () => _ = new SlimThreadPoolOptions { ThreadPriority = (ThreadPriority)42 }, typeof(ArgumentOutOfRangeException), "ThreadPriority");
        data.Add("BoundedCapacity = 0", () => _ = new SlimThreadPoolOptions { BoundedCapacity = 0 }, typeof(ArgumentOutOfRangeException), "BoundedCapacity");
        data.Add("BoundedCapacity = -5", () => _ = new SlimThreadPoolOptions { BoundedCapacity = -5 }, typeof(ArgumentOutOfRangeException), "BoundedCapacity");
        data.Add("ShutdownAsync(undefined mode)", () => UseSlim(p => _ = p.ShutdownAsync((ShutdownMode)7)), typeof(ArgumentOutOfRangeException), "mode");
        data.Add("QueueAsync(null Action)", () => UseSlim(p => _ = p.QueueAsync((Action)null!)), typeof(ArgumentNullException), "callback");
        data.Add("QueueAsync(null Action<object?>, state)", () => UseSlim(p => _ = p.QueueAsync((Action<object?>)null!, 1)), typeof(ArgumentNullException), "callback");
        data.Add("QueueAsync(null IWorkItem)", () => UseSlim(p => _ = p.QueueAsync((IWorkItem)null!)), typeof(ArgumentNullException), "workItem");
        data.Add("Run(null Action, token)", () => UseSlim(p => _ = p.Run((Action)null!, CancellationToken.None)), typeof(ArgumentNullException), "action");
        data.Add("WorkStealingWorkQueue.AttachWorker(-1)", () => new WorkStealingWorkQueue().AttachWorker(-1), typeof(ArgumentOutOfRangeException), "workerIndex");
        data.Add("WorkStealingWorkQueue.DetachWorker on a thread never attached", () => new WorkStealingWorkQueue().DetachWorker(0), typeof(InvalidOperationException), null);
        return data;
    }

    [Theory]
    [MemberData(nameof(Cases))]
    public void PublicMember_InvalidArgument_ThrowsTheDocumentedException(string member, Action call, Type expected, string? paramName)
    {
        Exception exception = Assert.ThrowsAny<Exception>(call);

        Assert.True(exception.GetType() == expected, $"{member}: expected {expected.Name}, got {exception.GetType().Name}: {exception.Message}");
        if (paramName is not null)
        {
            Assert.Equal(paramName, ((ArgumentException)exception).ParamName);
        }
    }

    private static void UseSlim(Action<SlimThreadPool> call)
    {
        using var pool = new SlimThreadPool(new SlimThreadPoolOptions { WorkerCount = 1 });
        call(pool);
    }

    private static void Use(Func<IThreadPool> create, Action<IThreadPool> call)
    {
        using IThreadPool pool = create();
        call(pool);
    }

    private static IThreadPool Disposed(Func<IThreadPool> create)
    {
        IThreadPool pool = create();
        pool.Dispose();
        return pool;
    }

    private sealed class NoOp : IWorkItem
    {
        public void Execute()
        {
        }
    }
}
