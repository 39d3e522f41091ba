using SlimPool.Bench.Work;

namespace SlimPool.Bench.Pools;

/// <summary>A <see cref="SlimThreadPool"/> through its zero-allocation paths: <see cref="SlimThreadPool.Queue(IWorkItem)"/> and <see cref="SlimThreadPool.Run(Func{Task})"/>.</summary>
internal readonly struct SlimPoolDriver(SlimThreadPool pool) : IBenchPool
{
    private readonly SlimThreadPool _pool = pool;

    public int ThreadCount => _pool.LiveWorkerCount;

    public void Queue(BenchWorkItem item) => _pool.Queue(item);

    // Array covariance: the items' array seen as IWorkItem[] (a read-only span of it is allowed).
    public void QueueBatch(BenchWorkItem[] items) => _pool.QueueBatch(new ReadOnlySpan<IWorkItem>(items));

    // From a worker the pool takes its local path by itself (work-stealing queues push to the worker's deque).
    public void QueueFromPool(BenchWorkItem item) => _pool.Queue(item);

    public Task Run(Func<Task> flow) => _pool.Run(flow);

    public void RunBlocking(Action action) => _pool.RunBlocking(action);

    public ISerialQueue CreateSerialQueue() => new GroupSerialQueue(_pool);
}
