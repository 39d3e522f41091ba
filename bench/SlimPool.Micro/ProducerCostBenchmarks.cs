using System.Runtime.CompilerServices;
using BenchmarkDotNet.Attributes;

namespace SlimPool.Micro;

/// <summary>
/// The producer's own cost per item: <see cref="Items"/> empty items queued from one thread while every worker of the
/// pool is held by an item waiting on a gate, so no consumer touches the queue during the measurement (the iteration's
/// setup holds the workers, its cleanup opens the gate and waits for the items). One <c>Queue</c> call an item, and
/// <see cref="SlimThreadPool.QueueBatch(ReadOnlySpan{IWorkItem})"/> calls of 256; the baseline is the built-in pool
/// called directly (<c>UnsafeQueueUserWorkItem(IThreadPoolWorkItem, preferLocal: false)</c>), and beside it the same call
/// with <c>preferLocal: true</c>, the like-for-like row for SlimPool's <c>Queue</c>: both then look up, in a thread-static,
/// whether the caller is one of their workers.
/// </summary>
[MemoryDiagnoser]
[InvocationCount(1)]
public class ProducerCostBenchmarks
{
    /// <summary>Items queued per iteration (one invocation).</summary>
    public const int Items = 102_400;

    private const int BatchLength = 256;

    private const int ChunkLength = 256; // calls per tier-1 loop method call (see QueueChunk)

    // More than either pool's threads on 2 cores (the built-in pool has run 3 here), so every thread is held.
    private const int HeldItems = 4;

    private readonly IWorkItem[] _items = new IWorkItem[BatchLength];
    private SlimThreadPool? _pool;
    private Batch? _batch;
    private ManualResetEventSlim? _gate;

    [GlobalSetup]
    public void Setup()
    {
        // The starvation guard off: it would rightly add workers for the held ones, which then drain while we measure.
        _pool = new SlimThreadPool(new SlimThreadPoolOptions { StarvationTimeout = Timeout.InfiniteTimeSpan });
        _batch = new Batch(Items + HeldItems);
        Array.Fill(_items, _batch);

        // One iteration is one invocation, a few milliseconds: without this, the pool's paths would still run as tier-0
        // code (the built-in pool's are precompiled) when the iterations start. Queue through every path until the
        // tiered JIT has had its 100 ms call-counting delay and compiled them, then measure.
        using Batch warm = new(Items);
        IWorkItem[] warmItems = [.. Enumerable.Repeat<IWorkItem>(warm, BatchLength)];
        for (int round = 0; round < 40; round++)
        {
            warm.Reset();
            for (int i = 0; i < Items; i += ChunkLength)
            {
                switch (round % 4)
                {
                    case 0:
                        QueueBatch(_pool, warmItems);
                        break;
                    case 1:
                        QueueChunk(_pool, warm);
                        break;
                    default:
                        QueueChunkBuiltIn(warm, preferLocal: round % 4 == 3);
                        break;
                }
            }

            warm.Wait();
            Thread.Sleep(10);
        }
    }

    [GlobalCleanup]
    public void Cleanup()
    {
        _pool?.Dispose();
        _batch?.Dispose();
    }

    [IterationSetup(Targets = [nameof(ThreadPool), nameof(ThreadPoolPreferLocal)])]
    public void HoldBuiltInWorkers() => Hold(static (action, state) => System.Threading.ThreadPool.UnsafeQueueUserWorkItem(action, state, preferLocal: false));

    [IterationSetup(Targets = [nameof(SlimPoolQueue), nameof(SlimPoolQueueBatch)])]
    public void HoldSlimPoolWorkers() => Hold((action, state) => _pool!.Queue(action, state));

    // Opens the gate and waits until the held items and every queued item have run.
    [IterationCleanup]
    public void Release()
    {
        _gate!.Set();
        _batch!.Wait();
        _gate.Dispose();
    }

    [Benchmark(Baseline = true, Description = "ThreadPool, one call an item", OperationsPerInvoke = Items)]
    public void ThreadPool()
    {
        Batch batch = _batch!;
        for (int i = 0; i < Items; i += ChunkLength)
        {
            QueueChunkBuiltIn(batch, preferLocal: false);
        }
    }

    [Benchmark(Description = "ThreadPool, one call an item, preferLocal", OperationsPerInvoke = Items)]
    public void ThreadPoolPreferLocal()
    {
        Batch batch = _batch!;
        for (int i = 0; i < Items; i += ChunkLength)
        {
            QueueChunkBuiltIn(batch, preferLocal: true);
        }
    }

    [Benchmark(Description = "SlimPool Queue, one call an item", OperationsPerInvoke = Items)]
    public void SlimPoolQueue()
    {
        SlimThreadPool pool = _pool!;
        Batch batch = _batch!;
        for (int i = 0; i < Items; i += ChunkLength)
        {
            QueueChunk(pool, batch);
        }
    }

    [Benchmark(Description = "SlimPool QueueBatch, 256 a call", OperationsPerInvoke = Items)]
    public void SlimPoolQueueBatch()
    {
        SlimThreadPool pool = _pool!;
        for (int i = 0; i < Items; i += BatchLength)
        {
            QueueBatch(pool, _items);
        }
    }

    // The per-item loops live in small methods called hundreds of times an invocation, so they run as fully optimized
    // tier-1 code. Written inside the benchmark method, a loop of 102,400 calls in a method called once an iteration
    // runs as on-stack-replacement code, which kept the pool's fields in stack slots and measured 10-11 ns an item for
    // SlimPool's Queue against 8 here (the built-in pool's loop hardly changed).
    [MethodImpl(MethodImplOptions.NoInlining)]
    private static void QueueChunkBuiltIn(Batch batch, bool preferLocal)
    {
        for (int i = 0; i < ChunkLength; i++)
        {
            System.Threading.ThreadPool.UnsafeQueueUserWorkItem(batch, preferLocal);
        }
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static void QueueChunk(SlimThreadPool pool, Batch batch)
    {
        for (int i = 0; i < ChunkLength; i++)
        {
            pool.Queue(batch);
        }
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static void QueueBatch(SlimThreadPool pool, IWorkItem[] items) => pool.QueueBatch(items);

    // Items that wait on a fresh gate, each counted in the batch when it ends: every thread of the pool is then busy
    // while the benchmark queues (those left over wait in the queue with the measured items).
    private void Hold(Action<Action<object?>, object?> queue)
    {
        _gate = new ManualResetEventSlim(false);
        _batch!.Reset();
        for (int i = 0; i < HeldItems; i++)
        {
            queue(static state =>
            {
                var (gate, batch) = ((ManualResetEventSlim, Batch))state!;
                gate.Wait();
                batch.Complete();
            }, (_gate, _batch));
        }

        Thread.Sleep(5); // the held items have started
    }
}
