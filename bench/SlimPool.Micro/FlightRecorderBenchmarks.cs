using System.Diagnostics.Metrics;
using BenchmarkDotNet.Attributes;

namespace SlimPool.Micro;

/// <summary>
/// What the flight recorder costs per queued-and-executed empty item on a default pool: off (the default), with
/// <see cref="SlimThreadPoolOptions.SlowItemThreshold"/> on (two stores per item, a watch thread), and with a listener
/// enabling the run-time histogram <c>slimpool.work_item.duration</c> (two clock reads for one item in 64 per worker).
/// Each invocation queues <see cref="BatchSize"/> items from one thread and waits until all have run; results are per
/// item. <see cref="QueueAndExecuteBenchmarks"/>' SlimPool row, run at a commit before the recorder, is the "before".
/// </summary>
[MemoryDiagnoser]
public class FlightRecorderBenchmarks
{
    /// <summary>Items queued per benchmark invocation.</summary>
    public const int BatchSize = 10_000;

    private SlimThreadPool? _pool;
    private Batch? _batch;
    private MeterListener? _listener;

    /// <summary>Which part of the recorder is on.</summary>
    [Params(Recorder.Off, Recorder.SlowItems, Recorder.Histogram)]
    public Recorder On { get; set; }

    [GlobalSetup]
    public void Setup()
    {
        _pool = new SlimThreadPool(new SlimThreadPoolOptions
        {
            Name = "recorder",
            SlowItemThreshold = On == Recorder.SlowItems ? TimeSpan.FromMilliseconds(100) : Timeout.InfiniteTimeSpan,
        });
        _batch = new Batch(BatchSize);
        if (On == Recorder.Histogram)
        {
            _listener = new MeterListener
            {
                InstrumentPublished = (instrument, listener) =>
                {
                    if (instrument.Name == "slimpool.work_item.duration")
                    {
                        listener.EnableMeasurementEvents(instrument);
                    }
                },
            };
            _listener.SetMeasurementEventCallback<double>(static (_, _, _, _) => { });
            _listener.Start();
        }
    }

    [GlobalCleanup]
    public void Cleanup()
    {
        _listener?.Dispose();
        _pool?.Dispose();
        _batch?.Dispose();
    }

    [Benchmark(OperationsPerInvoke = BatchSize)]
    public void QueueAndRun()
    {
        SlimThreadPool pool = _pool!;
        Batch batch = _batch!;
        batch.Reset();
        Action<object?> callback = Batch.CompleteCallback;
        for (int i = 0; i < BatchSize; i++)
        {
            pool.Queue(callback, batch);
        }

        batch.Wait();
    }

    /// <summary>The flight recorder's parts.</summary>
    public enum Recorder
    {
        /// <summary>The default: nothing on.</summary>
        Off,

        /// <summary><see cref="SlimThreadPoolOptions.SlowItemThreshold"/> of 100 ms.</summary>
        SlowItems,

        /// <summary>A listener enables <c>slimpool.work_item.duration</c>.</summary>
        Histogram,
    }
}
