using SlimPool.Bench.Work;

namespace SlimPool.Bench.Pools;

/// <summary>
/// Any <see cref="IThreadPool"/> through the interface: the seed's view of the built-in pool
/// (<see cref="ManagedThreadPool"/>, ExecutionContext flowing) and the naive one-lock pool. Never a reference row.
/// </summary>
internal readonly struct AdapterPool(IThreadPool pool) : IBenchPool
{
    private readonly IThreadPool _pool = pool;

    public int ThreadCount => _pool.WorkerCount;

    public void Queue(BenchWorkItem item) => _pool.Queue(item);

    public void QueueBatch(BenchWorkItem[] items)
    {
        foreach (BenchWorkItem item in items)
        {
            _pool.Queue(item);
        }
    }

    public void QueueFromPool(BenchWorkItem item) => _pool.Queue(item);

    public Task Run(Func<Task> flow) => Task.Factory.StartNew(flow, CancellationToken.None, TaskCreationOptions.DenyChildAttach, TaskScheduler.Default).Unwrap();

    public void RunBlocking(Action action) => action();

    public ISerialQueue CreateSerialQueue() => new MailboxSerialQueue<AdapterPool>(this);
}
