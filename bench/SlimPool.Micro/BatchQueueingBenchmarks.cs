using BenchmarkDotNet.Attributes;

namespace SlimPool.Micro;

/// <summary>
/// Cost per item of queueing <see cref="Items"/> empty items from one thread and waiting until all have run: one
/// <c>Queue</c> call an item against <see cref="SlimThreadPool.QueueBatch(ReadOnlySpan{IWorkItem})"/> calls of
/// <see cref="BatchLength"/> items. The baseline is the built-in pool called directly at its best
/// (<c>UnsafeQueueUserWorkItem(IThreadPoolWorkItem, preferLocal: false)</c>, one call an item: it has no batch form).
/// </summary>
[MemoryDiagnoser]
public class BatchQueueingBenchmarks
{
    /// <summary>Items queued per benchmark invocation.</summary>
    public const int Items = 10_240;

    private SlimThreadPool? _pool;
    private Batch? _batch;
    private IWorkItem[] _items = [];

    /// <summary>Items per <c>QueueBatch</c> call.</summary>
    [Params(16, 256)]
    public int BatchLength { get; set; }

    [GlobalSetup(Target = nameof(ThreadPool))]
    public void SetupThreadPool() => _batch = new Batch(Items);

    [GlobalSetup(Targets = [nameof(SlimPoolQueue), nameof(SlimPoolQueueBatch)])]
    public void SetupSlimPool()
    {
        _pool = new SlimThreadPool();
        _batch = new Batch(Items);
        _items = [.. Enumerable.Repeat<IWorkItem>(_batch, BatchLength)];
    }

    [GlobalCleanup]
    public void Cleanup()
    {
        _pool?.Dispose();
        _batch?.Dispose();
        _pool = null;
        _batch = null;
    }

    [Benchmark(Baseline = true, Description = "ThreadPool, one call an item", OperationsPerInvoke = Items)]
    public void ThreadPool()
    {
        Batch batch = _batch!;
        batch.Reset();
        for (int i = 0; i < Items; i++)
        {
            System.Threading.ThreadPool.UnsafeQueueUserWorkItem(batch, preferLocal: false);
        }

        batch.Wait();
    }

    [Benchmark(Description = "SlimPool Queue, one call an item", OperationsPerInvoke = Items)]
    public void SlimPoolQueue()
    {
        SlimThreadPool pool = _pool!;
        Batch batch = _batch!;
        batch.Reset();
        for (int i = 0; i < Items; i++)
        {
            pool.Queue(batch);
        }

        batch.Wait();
    }

    [Benchmark(Description = "SlimPool QueueBatch", OperationsPerInvoke = Items)]
    public void SlimPoolQueueBatch()
    {
        SlimThreadPool pool = _pool!;
        Batch batch = _batch!;
        ReadOnlySpan<IWorkItem> items = _items;
        batch.Reset();
        for (int i = 0; i < Items; i += items.Length)
        {
            pool.QueueBatch(items);
        }

        batch.Wait();
    }
}
