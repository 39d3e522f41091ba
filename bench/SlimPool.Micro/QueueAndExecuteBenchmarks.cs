using BenchmarkDotNet.Attributes;

namespace SlimPool.Micro;

/// <summary>
/// Cost and allocation per queued-and-executed item for each pool. Every invocation queues a batch of
/// <see cref="BatchSize"/> empty items from one thread, through the state overload (a cached static delegate and
/// a shared counter) or the <see cref="IWorkItem"/> overload (one reusable item), and waits until all of them have
/// run; results are per item. The baseline, ThreadPool, is the built-in pool called directly at its best:
/// <c>UnsafeQueueUserWorkItem(IThreadPoolWorkItem, preferLocal: false)</c> for the work item and the generic
/// <c>UnsafeQueueUserWorkItem&lt;TState&gt;</c> for state. The seed's view of it through
/// <see cref="ManagedThreadPool"/> is an extra row, never the baseline.
/// </summary>
/// <remarks>
/// <see cref="MemoryDiagnoser"/> reads <see cref="GC.GetTotalAllocatedBytes(bool)"/>, which on .NET counts every
/// thread in the process, so allocations made on pool threads show up too.
/// </remarks>
[MemoryDiagnoser]
public class QueueAndExecuteBenchmarks
{
    /// <summary>Items queued per benchmark invocation.</summary>
    public const int BatchSize = 10_000;

    private IThreadPool? _pool;
    private Batch? _batch;

    /// <summary>The overload the items are queued through.</summary>
    [Params(QueueOverload.State, QueueOverload.WorkItem)]
    public QueueOverload Overload { get; set; }

    // Each benchmark creates only its own pool, so idle workers of the other pools never share the cores with it.
    [GlobalSetup(Target = nameof(ThreadPool))]
    public void SetupThreadPool() => _batch = new Batch(BatchSize);

    [GlobalSetup(Target = nameof(ThreadPoolViaIThreadPool))]
    public void SetupThreadPoolViaIThreadPool() => Start(new ManagedThreadPool());

    [GlobalSetup(Target = nameof(LockedAre))]
    public void SetupLockedAre() =>
        Start(new SlimThreadPool(new SlimThreadPoolOptions { Queue = WorkQueueKind.Locked, IdleWait = IdleWaitKind.AutoResetEvent }));

    [GlobalSetup(Target = nameof(LockFreeAre))]
    public void SetupLockFreeAre() =>
        Start(new SlimThreadPool(new SlimThreadPoolOptions { Queue = WorkQueueKind.LockFree, IdleWait = IdleWaitKind.AutoResetEvent }));

    [GlobalSetup(Target = nameof(SlimPool))]
    public void SetupSlimPool() => Start(new SlimThreadPool());

    [GlobalCleanup]
    public void Cleanup()
    {
        _pool?.Dispose();
        _batch?.Dispose();
        _pool = null;
        _batch = null;
    }

    [Benchmark(Baseline = true, Description = "ThreadPool", OperationsPerInvoke = BatchSize)]
    public void ThreadPool()
    {
        Batch batch = _batch!;
        batch.Reset();
        if (Overload == QueueOverload.State)
        {
            Action<Batch> callback = Batch.TypedCompleteCallback;
            for (int i = 0; i < BatchSize; i++)
            {
                System.Threading.ThreadPool.UnsafeQueueUserWorkItem(callback, batch, preferLocal: false);
            }
        }
        else
        {
            for (int i = 0; i < BatchSize; i++)
            {
                System.Threading.ThreadPool.UnsafeQueueUserWorkItem(batch, preferLocal: false);
            }
        }

        batch.Wait();
    }

    [Benchmark(Description = "ThreadPool via IThreadPool", OperationsPerInvoke = BatchSize)]
    public void ThreadPoolViaIThreadPool() => QueueBatchAndWait();

    [Benchmark(Description = "Locked+ARE", OperationsPerInvoke = BatchSize)]
    public void LockedAre() => QueueBatchAndWait();

    [Benchmark(Description = "LockFree+ARE", OperationsPerInvoke = BatchSize)]
    public void LockFreeAre() => QueueBatchAndWait();

    [Benchmark(Description = "SlimPool", OperationsPerInvoke = BatchSize)]
    public void SlimPool() => QueueBatchAndWait();

    private void Start(IThreadPool pool)
    {
        _pool = pool;
        _batch = new Batch(BatchSize);
    }

    private void QueueBatchAndWait()
    {
        IThreadPool pool = _pool!;
        Batch batch = _batch!;
        batch.Reset();
        if (Overload == QueueOverload.State)
        {
            Action<object?> callback = Batch.CompleteCallback;
            for (int i = 0; i < BatchSize; i++)
            {
                pool.Queue(callback, batch);
            }
        }
        else
        {
            for (int i = 0; i < BatchSize; i++)
            {
                pool.Queue(batch);
            }
        }

        batch.Wait();
    }
}
