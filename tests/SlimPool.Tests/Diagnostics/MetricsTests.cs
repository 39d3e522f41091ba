using System.Collections.Concurrent;
using System.Diagnostics.Metrics;
using SlimPool.Tests.Infrastructure;
using SlimPool.Scheduling;

namespace SlimPool.Tests.Diagnostics;

public sealed class MetricsTests
{
    [Fact]
    public async Task Meter_AfterWork_ReportsCountsTaggedWithThePoolName()
    {
        string name = $"metrics-{Guid.NewGuid():N}";
        using var listener = new PoolListener(name);
        var options = new SlimThreadPoolOptions
        {
            WorkerCount = 2,
            Name = name,
            StarvationTimeout = Timeout.InfiniteTimeSpan,
            UnhandledException = _ => { },
        };
        using var pool = new SlimThreadPool(options);
        for (int i = 0; i < 100; i++)
        {
            pool.Queue(() => { });
        }

        pool.Queue(() => throw new InvalidOperationException("expected by the test"));
        pool.Queue(() => throw new InvalidOperationException("expected by the test"));
        pool.Queue(() => { }, new CancellationToken(canceled: true));
        await pool.WaitForIdleAsync().WaitAsync(Bounded.Timeout);

        listener.Collect();

        Assert.Equal(103, listener.Last("slimpool.work_item.completed"));
        Assert.Equal(2, listener.Last("slimpool.work_item.failed"));
        Assert.Equal(1, listener.Last("slimpool.work_item.cancelled"));
        Assert.Equal(0, listener.Last("slimpool.queue.length"));
        Assert.Equal(2, listener.Last("slimpool.worker.count"));
        Assert.Equal(0, listener.Last("slimpool.worker.busy"));
        Assert.Equal(0, listener.Last("slimpool.worker.blocked"));
    }

    [Fact]
    public void Meter_WorkersBusyAndItemsWaiting_ReportsThem()
    {
        string name = $"metrics-{Guid.NewGuid():N}";
        using var listener = new PoolListener(name);
        using SlimThreadPool pool = TestPools.Create(workers: 2, options => options.Name = name);
        using var blocked = new BlockedWorkers(pool);
        for (int i = 0; i < 10; i++)
        {
            pool.Queue(() => { });
        }

        listener.Collect();

        Assert.Equal(2, listener.Last("slimpool.worker.busy"));
        Assert.Equal(10, listener.Last("slimpool.queue.length"));
    }

    [Fact]
    public async Task QueueWaitHistogram_ListenerEnabled_RecordsOneItemInSixtyFour()
    {
        string name = $"metrics-{Guid.NewGuid():N}";
        using SlimThreadPool pool = TestPools.Create(workers: 1, options => options.Name = name);
        using (var listener = new PoolListener(name))
        {
            // Any 640 items queued by one thread while the histogram is enabled hold exactly ten sampled ones.
            for (int i = 0; i < 10 * Publisher.QueueWaitSampleInterval; i++)
            {
                pool.Queue(() => { });
            }

            await pool.WaitForIdleAsync().WaitAsync(Bounded.Timeout);

            Assert.Equal(10, listener.Histogram.Count);
            Assert.All(listener.Histogram, seconds => Assert.InRange(seconds, 0, Bounded.Timeout.TotalSeconds));
        }

        // With the listener gone the pool stops stamping items: a stamp is a 48-byte object per item, 480 KB for
        // these 10,000. The best of three bursts must stay under half of that. (Not zero: in a loaded full test run
        // we have seen 64 KB in each burst, the size of the queue's first ring growth, with the listener gone.)
        const int Items = 10_000;
        long fewest = long.MaxValue;
        for (int burst = 0; burst < 3; burst++)
        {
            fewest = Math.Min(fewest, QueueAllocations(pool, Items));
            await pool.WaitForIdleAsync().WaitAsync(Bounded.Timeout);
        }

        Assert.InRange(fewest, 0, Items * 48 / 2);
    }

    [Fact]
    public async Task QueueWaitHistogram_ListenerEnabledWhileBatchesAreQueued_RecordsOneItemInSixtyFourAndEveryItemRuns()
    {
        string name = $"metrics-{Guid.NewGuid():N}";
        using SlimThreadPool pool = TestPools.Create(workers: 1, options => options.Name = name);
        using var listener = new PoolListener(name);
        var done = new CountdownEvent(10 * Publisher.QueueWaitSampleInterval);
        using (done)
        {
            object?[] states = new object?[Publisher.QueueWaitSampleInterval + 3]; // batches that straddle the samples
            int queued = 0;
            while (queued < done.InitialCount)
            {
                int length = Math.Min(states.Length, done.InitialCount - queued);
                pool.QueueBatch(_ => done.Signal(), states.AsSpan(0, length));
                queued += length;
            }

            Bounded.Wait(done, "every batched item, the stamped ones included");
        }

        await pool.WaitForIdleAsync().WaitAsync(Bounded.Timeout);
        Assert.Equal(10, listener.Histogram.Count);
    }

    [Fact]
    public void Meter_Tags_NameThePoolSoAListenerCanPickIt()
    {
        string name = $"metrics-{Guid.NewGuid():N}";
        var published = new List<Instrument>();
        using var listener = new MeterListener
        {
            InstrumentPublished = (instrument, _) =>
            {
                if (instrument.Meter.Name == SlimThreadPool.MeterName && instrument.Meter.Tags?.Contains(new(SlimThreadPool.PoolNameTag, name)) == true)
                {
                    lock (published)
                    {
                        published.Add(instrument);
                    }
                }
            },
        };
        listener.Start();

        using SlimThreadPool pool = TestPools.Create(configure: null, name: name);

        lock (published)
        {
            Assert.Contains(published, i => i.Name == "slimpool.work_item.queue_wait");
            Assert.Contains(published, i => i.Name == "slimpool.group.work_item.completed");
            Assert.Contains(published, i => i.Name == "slimpool.work_item.duration");
            Assert.Contains(published, i => i.Name == "slimpool.work_item.slow");
            Assert.Equal(12, published.Count);
        }
    }

    [Fact]
    public void Meter_PoolShutDown_StopsReporting()
    {
        string name = $"metrics-{Guid.NewGuid():N}";
        using var listener = new PoolListener(name);
        SlimThreadPool pool = TestPools.Create(configure: null, name: name);
        pool.Dispose();

        listener.Collect();

        Assert.Null(listener.LastOrNull("slimpool.worker.count"));
    }

    private static long QueueAllocations(SlimThreadPool pool, int items)
    {
        Action<object?> callback = static _ => { };
        pool.Queue(callback, null); // warm
        long before = GC.GetAllocatedBytesForCurrentThread();
        for (int i = 0; i < items; i++)
        {
            pool.Queue(callback, null);
        }

        return GC.GetAllocatedBytesForCurrentThread() - before;
    }

    /// <summary>Listens to the SlimPool meter and keeps the measurements of one pool (by its name tag).</summary>
    private sealed class PoolListener : IDisposable
    {
        private readonly MeterListener _listener = new();
        private readonly ConcurrentDictionary<string, long> _last = new();
        private readonly string _poolName;

        public PoolListener(string poolName)
        {
            _poolName = poolName;
            // Only this pool's meter: enabling the queue-wait histogram of every pool would make other tests'
            // pools stamp their items (and allocate) while this test listens.
            _listener.InstrumentPublished = (instrument, listener) =>
            {
                if (instrument.Meter.Name == SlimThreadPool.MeterName && IsOurs(instrument.Meter.Tags))
                {
                    listener.EnableMeasurementEvents(instrument);
                }
            };
            _listener.SetMeasurementEventCallback<long>((instrument, value, tags, _) => Keep(instrument, value, tags));
            _listener.SetMeasurementEventCallback<int>((instrument, value, tags, _) => Keep(instrument, value, tags));
            _listener.SetMeasurementEventCallback<double>((instrument, value, tags, _) =>
            {
                if (IsOurs(tags) && instrument.Name == "slimpool.work_item.queue_wait")
                {
                    Histogram.Add(value);
                }
            });
            _listener.Start();
        }

        /// <summary>What the queue-wait histogram recorded for this pool.</summary>
        public ConcurrentBag<double> Histogram { get; } = [];

        public void Collect() => _listener.RecordObservableInstruments();

        public long Last(string instrument) =>
            LastOrNull(instrument) ?? throw new InvalidOperationException($"No measurement of {instrument} for pool {_poolName}.");

        public long? LastOrNull(string instrument) => _last.TryGetValue(instrument, out long value) ? value : null;

        public void Dispose() => _listener.Dispose();

        private void Keep(Instrument instrument, long value, ReadOnlySpan<KeyValuePair<string, object?>> tags)
        {
            if (IsOurs(tags))
            {
                _last[instrument.Name] = value;
            }
        }

        private bool IsOurs(IEnumerable<KeyValuePair<string, object?>>? tags) =>
            tags is not null && tags.Any(tag => tag.Key == SlimThreadPool.PoolNameTag && (string?)tag.Value == _poolName);

        private bool IsOurs(ReadOnlySpan<KeyValuePair<string, object?>> tags)
        {
            foreach (KeyValuePair<string, object?> tag in tags)
            {
                if (tag.Key == SlimThreadPool.PoolNameTag && (string?)tag.Value == _poolName)
                {
                    return true;
                }
            }

            return false;
        }
    }
}
