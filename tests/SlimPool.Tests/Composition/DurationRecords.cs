using System.Collections.Concurrent;
using System.Diagnostics.Metrics;

namespace SlimPool.Tests.Composition;

/// <summary>
/// The run-time histogram of one program's pool, enabled for a pool whose spec turns the flight recorder on, so the
/// sampling path runs among every other feature; what it recorded, for the checks.
/// </summary>
internal sealed class DurationRecords : IDisposable
{
    private readonly MeterListener _listener = new();
    private readonly ConcurrentQueue<(double Seconds, string? Pool, string? Group)> _records = new();

    public DurationRecords(string poolName)
    {
        _listener.InstrumentPublished = (instrument, listener) =>
        {
            if (instrument.Name == "slimpool.work_item.duration" && instrument.Meter.Tags?.Contains(new(SlimThreadPool.PoolNameTag, poolName)) == true)
            {
                listener.EnableMeasurementEvents(instrument);
            }
        };
        _listener.SetMeasurementEventCallback<double>((_, value, tags, _) =>
        {
            string? pool = null;
            string? group = null;
            foreach (KeyValuePair<string, object?> tag in tags)
            {
                pool = tag.Key == SlimThreadPool.PoolNameTag ? tag.Value as string : pool;
                group = tag.Key == SlimThreadPool.GroupNameTag ? tag.Value as string : group;
            }

            // On the worker, right after the item: an Interrupt item's interrupt may be pending, and the queue's growth
            // takes a lock, which would throw at it (before enqueueing). Taken, retried, and given back for the pool.
            bool interrupted = false;
            while (true)
            {
                try
                {
                    _records.Enqueue((value, pool, group));
                    break;
                }
                catch (ThreadInterruptedException)
                {
                    interrupted = true;
                }
            }

            if (interrupted)
            {
                Thread.CurrentThread.Interrupt();
            }
        });
        _listener.Start();
    }

    public IReadOnlyCollection<(double Seconds, string? Pool, string? Group)> Records => _records;

    public void Dispose() => _listener.Dispose();
}
