using BenchmarkDotNet.Attributes;

namespace SlimPool.Micro;

/// <summary>
/// The worker-local path: an item that, running on a pool thread, queues its successor, <see cref="Steps"/> items per
/// invocation shared among <see cref="Chains"/> chains running at once. SlimPool puts the successor in the worker's LIFO slot;
/// the built-in pool, the baseline, gets <c>UnsafeQueueUserWorkItem(item, preferLocal: true)</c>, its own
/// thread-local queue. Results are per item run.
/// </summary>
[MemoryDiagnoser]
public class LocalRequeueBenchmarks
{
    /// <summary>Items run per invocation, by all chains together.</summary>
    public const int Steps = 10_000;

    private SlimThreadPool? _pool;
    private Batch _done = null!;
    private ChainItem[] _chains = [];

    /// <summary>How many chains run at once: one, or one per core.</summary>
    [Params(1, 2)]
    public int Chains { get; set; }

    [GlobalSetup(Target = nameof(ThreadPool))]
    public void SetupThreadPool() => Create(pool: null);

    [GlobalSetup(Target = nameof(SlimPool))]
    public void SetupSlimPool() => Create(new SlimThreadPool());

    [GlobalCleanup]
    public void Cleanup()
    {
        _pool?.Dispose();
        _pool = null;
        _done.Dispose();
    }

    [Benchmark(Baseline = true, Description = "ThreadPool (preferLocal)", OperationsPerInvoke = Steps)]
    public void ThreadPool()
    {
        _done.Reset();
        foreach (ChainItem chain in _chains)
        {
            chain.Restart();
            System.Threading.ThreadPool.UnsafeQueueUserWorkItem(chain, preferLocal: false);
        }

        _done.Wait();
    }

    [Benchmark(Description = "SlimPool", OperationsPerInvoke = Steps)]
    public void SlimPool()
    {
        _done.Reset();
        foreach (ChainItem chain in _chains)
        {
            chain.Restart();
            _pool!.Queue(chain);
        }

        _done.Wait();
    }

    private void Create(SlimThreadPool? pool)
    {
        _pool = pool;
        _done = new Batch(Chains);
        _chains = new ChainItem[Chains];
        for (int i = 0; i < Chains; i++)
        {
            _chains[i] = new ChainItem(pool, _done, Steps / Chains);
        }
    }

    /// <summary>One chain: each run queues the same item again from the worker until the chain has run its steps.</summary>
    private sealed class ChainItem(SlimThreadPool? pool, Batch done, int steps) : IWorkItem, IThreadPoolWorkItem
    {
        private int _left;

        public void Restart() => _left = steps;

        public void Execute()
        {
            if (--_left == 0)
            {
                done.Complete();
            }
            else if (pool is null)
            {
                System.Threading.ThreadPool.UnsafeQueueUserWorkItem(this, preferLocal: true);
            }
            else
            {
                pool.Queue(this);
            }
        }
    }
}
