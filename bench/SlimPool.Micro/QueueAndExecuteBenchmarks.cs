using BenchmarkDotNet.Attributes;

namespace SlimPool.Micro;

/// <summary>
/// Cost per queued-and-executed item, and allocation per item, for each pool: a batch of empty items through
/// the state overload (a cached delegate) or a reusable <see cref="IWorkItem"/>, queued from one thread and
/// waited for. ThreadPool is the baseline, so the summary shows each pool's ratio to it.
/// </summary>
[MemoryDiagnoser]
public class QueueAndExecuteBenchmarks
{
    private const int BatchSize = 10_000;

    private static readonly Action<object?> s_callback = static state => ((Batch)state!).Signal();

    private readonly Batch _batch = new(BatchSize);
    private ManagedThreadPool _threadPool = null!;
    private ManagedThreadPool _threadPoolUnsafe = null!;
    private SlimThreadPool _lockedAre = null!;
    private SlimThreadPool _lockFreeAre = null!;
    private SlimThreadPool _slimPool = null!;

    /// <summary>Which queueing overload the items go through.</summary>
    [Params("state", "IWorkItem")]
    public string Overload { get; set; } = "state";

    [GlobalSetup]
    public void Setup()
    {
        _threadPool = new ManagedThreadPool();
        _threadPoolUnsafe = new ManagedThreadPool(flowExecutionContext: false);
        _lockedAre = new SlimThreadPool(new SlimThreadPoolOptions { Queue = WorkQueueKind.Locked, IdleWait = IdleWaitKind.AutoResetEvent });
        _lockFreeAre = new SlimThreadPool(new SlimThreadPoolOptions { Queue = WorkQueueKind.LockFree, IdleWait = IdleWaitKind.AutoResetEvent });
        _slimPool = new SlimThreadPool();
    }

    [GlobalCleanup]
    public void Cleanup()
    {
        foreach (IThreadPool pool in new IThreadPool[] { _threadPool, _threadPoolUnsafe, _lockedAre, _lockFreeAre, _slimPool })
        {
            pool.Dispose();
        }
    }

    [Benchmark(Baseline = true, OperationsPerInvoke = BatchSize)]
    public void ThreadPool() => Run(_threadPool);

    [Benchmark(OperationsPerInvoke = BatchSize)]
    public void ThreadPoolUnsafe() => Run(_threadPoolUnsafe);

    [Benchmark(OperationsPerInvoke = BatchSize)]
    public void LockedAre() => Run(_lockedAre);

    [Benchmark(OperationsPerInvoke = BatchSize)]
    public void LockFreeAre() => Run(_lockFreeAre);

    [Benchmark(OperationsPerInvoke = BatchSize)]
    public void SlimPool() => Run(_slimPool);

    private void Run(IThreadPool pool)
    {
        _batch.Reset();
        if (Overload == "state")
        {
            for (int i = 0; i < BatchSize; i++)
            {
                pool.Queue(s_callback, _batch);
            }
        }
        else
        {
            for (int i = 0; i < BatchSize; i++)
            {
                pool.Queue(_batch);
            }
        }

        _batch.Wait();
    }
}
