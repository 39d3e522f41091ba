using System.Diagnostics;
using System.Diagnostics.Metrics;
using System.Runtime.CompilerServices;
using SlimPool.Groups;

namespace SlimPool.Diagnostics;

/// <summary>
/// The run-time histogram (<c>slimpool.work_item.duration</c>): while a listener has enabled it, one item in
/// <see cref="SampleInterval"/> per worker thread is timed from start to return and recorded, tagged with its pool and,
/// for a group's item, its group.
/// </summary>
/// <remarks>
/// Off, an item costs one read of the instrument's enabled flag. On, a sampled item costs two clock reads and a
/// <see cref="Histogram{T}.Record(T, KeyValuePair{string, object?}, KeyValuePair{string, object?})"/>; the others a
/// thread-static increment. Timed where workers run user items: the worker loop and a group's turn (a turn itself is
/// machinery and is not recorded; the worker loop drops a sample that fell on one). Items run on a thread that is not a
/// worker (a shutdown's drain on the caller's thread, a full bounded <c>Queue</c> running the item inline) are not
/// timed.
/// </remarks>
internal sealed class WorkItemDurations(Histogram<double> histogram, string poolName, Action<Exception> reportListenerFault)
{
    /// <summary>One item in this many is timed on each thread, as the queue wait samples its items.</summary>
    public const int SampleInterval = 64;

    [ThreadStatic]
    private static uint t_sample;

    private readonly KeyValuePair<string, object?> _poolTag = new(SlimThreadPool.PoolNameTag, poolName);

    /// <summary>Whether a listener has the histogram enabled now.</summary>
    public bool IsEnabled => histogram.Enabled;

    /// <summary>The start of a sampled item's run, or 0 when this item is not timed.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public long StartSample() => histogram.Enabled && (++t_sample & (SampleInterval - 1)) == 0 ? Stopwatch.GetTimestamp() : 0;

    /// <summary>Records a sampled item that started at <paramref name="startedAt"/> (non-zero, from <see cref="StartSample"/>).</summary>
    public void Record(long startedAt, SlimThreadPoolGroup? group)
    {
        double seconds = Stopwatch.GetElapsedTime(startedAt).TotalSeconds;
        try
        {
            if (group is null)
            {
                histogram.Record(seconds, _poolTag);
            }
            else
            {
                histogram.Record(seconds, _poolTag, new KeyValuePair<string, object?>(SlimThreadPool.GroupNameTag, group.Name));
            }
        }
        catch (Exception exception)
        {
            // A listener's callback runs inside Record, on the worker, after the item's own try: its exception is reported
            // as an item's is, and never leaves here (out of the worker's loop, or out of a group's turn half-way).
            reportListenerFault(exception);
        }
    }
}
