using System.Diagnostics;
using BenchmarkDotNet.Attributes;

namespace SlimPool.Micro;

/// <summary>
/// Hand-off: one item queued from an outside thread, which then waits (spinning) until a worker has run it, over
/// and over. With one item in flight at a time this is the round trip from a queue call to the item's start and
/// back, the latency a request/response pair sees on a pool whose workers are awake (they find each item while
/// they still spin); the batch benchmarks measure throughput instead.
/// </summary>
/// <remarks>
/// The baseline is the built-in pool called directly, <c>UnsafeQueueUserWorkItem(IThreadPoolWorkItem,
/// preferLocal: false)</c>; SlimPool's default runs the same item through <see cref="IThreadPool.Queue(IWorkItem)"/>.
/// </remarks>
[MemoryDiagnoser]
public class HandOffBenchmarks
{
    /// <summary>Round trips per invocation.</summary>
    public const int RoundTrips = 1_000;

    private SlimThreadPool? _pool;
    private Flag _flag = null!;

    [GlobalSetup(Target = nameof(ThreadPool))]
    public void SetupThreadPool() => _flag = new Flag();

    [GlobalSetup(Target = nameof(SlimPool))]
    public void SetupSlimPool()
    {
        _pool = new SlimThreadPool();
        _flag = new Flag();
    }

    [GlobalCleanup]
    public void Cleanup()
    {
        _pool?.Dispose();
        _pool = null;
    }

    [Benchmark(Baseline = true, Description = "ThreadPool", OperationsPerInvoke = RoundTrips)]
    public void ThreadPool()
    {
        Flag flag = _flag;
        for (int i = 0; i < RoundTrips; i++)
        {
            flag.Arm();
            System.Threading.ThreadPool.UnsafeQueueUserWorkItem(flag, preferLocal: false);
            flag.WaitUntilRun();
        }
    }

    [Benchmark(Description = "SlimPool", OperationsPerInvoke = RoundTrips)]
    public void SlimPool()
    {
        SlimThreadPool pool = _pool!;
        Flag flag = _flag;
        for (int i = 0; i < RoundTrips; i++)
        {
            flag.Arm();
            pool.Queue(flag);
            flag.WaitUntilRun();
        }
    }

    /// <summary>A reusable item that raises a flag the queueing thread spins on.</summary>
    private sealed class Flag : IWorkItem, IThreadPoolWorkItem
    {
        private static readonly long s_timeoutTicks = Stopwatch.Frequency * 30;

        private int _ran;

        public void Arm() => Volatile.Write(ref _ran, 0);

        public void Execute() => Volatile.Write(ref _ran, 1);

        // Spins (yielding now and then, never sleeping) so the round trip is not rounded up to a timer tick; throws
        // rather than hang if the pool loses the item.
        public void WaitUntilRun()
        {
            var spinner = default(SpinWait);
            long deadline = 0;
            while (Volatile.Read(ref _ran) == 0)
            {
                spinner.SpinOnce(sleep1Threshold: -1);
                if (spinner.Count % 1024 == 0)
                {
                    long now = Stopwatch.GetTimestamp();
                    if (deadline == 0)
                    {
                        deadline = now + s_timeoutTicks;
                    }
                    else if (now > deadline)
                    {
                        throw new TimeoutException("The item did not run within 30 s.");
                    }
                }
            }
        }
    }
}
