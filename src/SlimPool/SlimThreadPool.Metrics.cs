using System.Diagnostics.Metrics;
using SlimPool.Diagnostics;

namespace SlimPool;

/// <summary>Metrics: each pool publishes its instruments on a <see cref="Meter"/> named <see cref="MeterName"/>.</summary>
public sealed partial class SlimThreadPool
{
    /// <summary>
    /// The name of the <see cref="Meter"/> every pool publishes on (<c>dotnet-counters monitor --counters SlimPool</c>).
    /// Each pool has its own <see cref="Meter"/> instance of that name, whose <see cref="Meter.Tags"/> and every
    /// measurement carry the tag <see cref="PoolNameTag"/> with the pool's <see cref="Name"/>. Instruments:
    /// <c>slimpool.queue.length</c>, <c>slimpool.worker.count</c>, <c>slimpool.worker.busy</c>,
    /// <c>slimpool.worker.blocked</c> (observable up-down counters); <c>slimpool.work_item.completed</c>,
    /// <c>slimpool.work_item.failed</c>, <c>slimpool.work_item.cancelled</c> (observable counters); and the
    /// histogram <c>slimpool.work_item.queue_wait</c> (seconds from queueing to start), recorded only while a
    /// listener has enabled it, and then for one item in 64 per producing thread: the pool stamps that item, which
    /// costs one 48-byte object and a clock read, under one byte per item on average; the histogram
    /// <c>slimpool.work_item.duration</c> (seconds from an item's start to its return), likewise recorded only while
    /// enabled, for one item in 64 per worker, a group's items tagged also with <see cref="GroupNameTag"/>; and
    /// <c>slimpool.work_item.slow</c> (observable counter: items reported by the slow-item detector,
    /// <see cref="SlimThreadPoolOptions.SlowItemThreshold"/>). Per group
    /// (<see cref="CreateGroup"/>), tagged also with <see cref="GroupNameTag"/>: <c>slimpool.group.queue.length</c>
    /// (observable up-down counter) and <c>slimpool.group.work_item.completed</c> (observable counter).
    /// </summary>
    public const string MeterName = "SlimPool";

    /// <summary>The tag that names the pool on each of its measurements: <c>slimpool.pool.name</c>.</summary>
    public const string PoolNameTag = "slimpool.pool.name";

    /// <summary>The tag that names the group on each of its measurements: <c>slimpool.group.name</c>.</summary>
    public const string GroupNameTag = "slimpool.group.name";

    private readonly Meter _meter;
    private readonly WorkItemDurations _durations;

    /// <summary>
    /// The number of items the slow-item detector has reported (<see cref="SlimThreadPoolOptions.SlowItemThreshold"/>):
    /// each ran, or still runs, past the threshold; 0 while the detector is off.
    /// </summary>
    public long SlowWorkItemCount => _slowItems?.ReportedCount ?? 0;

    /// <summary>Times one item in 64 per worker while a listener enables <c>slimpool.work_item.duration</c>.</summary>
    internal WorkItemDurations Durations => _durations;

    private (Meter Meter, Histogram<double> QueueWait, Action<TimeSpan> RecordQueueWait, WorkItemDurations Durations) CreateMetrics()
    {
        KeyValuePair<string, object?> tag = new(PoolNameTag, _name);

        // The tag is on the meter too, so a listener can pick one pool's instruments when they are published
        // (enabling the queue-wait histogram for one pool then costs the others nothing).
        var meter = new Meter(new MeterOptions(MeterName)
        {
            Version = typeof(SlimThreadPool).Assembly.GetName().Version?.ToString(),
            Tags = [tag],
        });
        meter.CreateObservableUpDownCounter("slimpool.queue.length", () => new Measurement<long>(_queue.Count, tag), "{work_item}", "Items queued and not yet started.");
        meter.CreateObservableUpDownCounter("slimpool.worker.count", () => new Measurement<int>(LiveWorkerCount, tag), "{thread}", "Worker threads alive, spare workers included.");
        meter.CreateObservableUpDownCounter("slimpool.worker.busy", () => new Measurement<int>(BusyWorkerCount, tag), "{thread}", "Workers running items.");
        meter.CreateObservableUpDownCounter("slimpool.worker.blocked", () => new Measurement<int>(BlockedWorkerCount, tag), "{thread}", "Workers inside a blocking scope.");
        meter.CreateObservableCounter("slimpool.work_item.completed", () => new Measurement<long>(CompletedWorkItemCount, tag), "{work_item}", "Items finished, the pool's and its groups', each once; failed and skipped ones included.");
        meter.CreateObservableCounter("slimpool.work_item.failed", () => new Measurement<long>(UnhandledExceptionCount, tag), "{work_item}", "Items that threw.");
        meter.CreateObservableCounter("slimpool.work_item.cancelled", () => new Measurement<long>(CancelledWorkItemCount, tag), "{work_item}", "Items skipped because their token was cancelled before they started.");
        meter.CreateObservableUpDownCounter("slimpool.group.queue.length", () => GroupMeasurements(static g => g.PendingWorkItemCount), "{work_item}", "A group's items queued and not yet started.");
        meter.CreateObservableCounter("slimpool.group.work_item.completed", () => GroupMeasurements(static g => g.CompletedWorkItemCount), "{work_item}", "A group's items run, failed and skipped ones included.");
        Histogram<double> queueWait = meter.CreateHistogram(
            "slimpool.work_item.queue_wait",
            "s",
            "Time from queueing to start; recorded only while a listener is enabled.",
            tags: null,
            advice: new InstrumentAdvice<double> { HistogramBucketBoundaries = [1e-6, 5e-6, 1e-5, 5e-5, 1e-4, 5e-4, 1e-3, 5e-3, 1e-2, 5e-2, 0.1, 0.5, 1] });
        meter.CreateObservableCounter("slimpool.work_item.slow", () => new Measurement<long>(SlowWorkItemCount, tag), "{work_item}", "Items the slow-item detector reported (SlowItemThreshold).");
        Histogram<double> duration = meter.CreateHistogram(
            "slimpool.work_item.duration",
            "s",
            "Time from an item's start to its return, one item in 64 per worker; recorded only while a listener is enabled.",
            tags: null,
            advice: new InstrumentAdvice<double> { HistogramBucketBoundaries = [1e-7, 1e-6, 5e-6, 1e-5, 5e-5, 1e-4, 5e-4, 1e-3, 5e-3, 1e-2, 5e-2, 0.1, 0.5, 1] });
        // Both are recorded on the workers, outside an item's own try (the queue wait before the item runs): a listener
        // that throws is reported like an item, never let out where it would lose the item or end the worker.
        Workers.WorkItemRunner runner = _runner;
        void RecordQueueWait(TimeSpan elapsed)
        {
            try
            {
                queueWait.Record(elapsed.TotalSeconds, tag);
            }
            catch (Exception exception)
            {
                runner.ReportUnhandled(exception);
            }
        }

        return (meter, queueWait, RecordQueueWait, new WorkItemDurations(duration, _name, runner.ReportUnhandled));
    }

    // One measurement per group not yet shut down, tagged with the pool's and the group's names.
    private IEnumerable<Measurement<long>> GroupMeasurements(Func<SlimThreadPoolGroup, long> read)
    {
        foreach (SlimThreadPoolGroup group in Groups)
        {
            yield return new Measurement<long>(read(group), new KeyValuePair<string, object?>(PoolNameTag, _name), new KeyValuePair<string, object?>(GroupNameTag, group.Name));
        }
    }
}
