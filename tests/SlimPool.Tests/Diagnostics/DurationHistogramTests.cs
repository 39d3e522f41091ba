using System.Collections.Concurrent;
using System.Diagnostics;
using System.Diagnostics.Metrics;
using SlimPool.Diagnostics;
using SlimPool.Tests.Infrastructure;

namespace SlimPool.Tests.Diagnostics;

/// <summary>
/// The run-time histogram <c>slimpool.work_item.duration</c>: one item in 64 per worker while a listener enables it,
/// the item's own run time, a group's items tagged with the group, a group's turn never recorded as an item.
/// </summary>
public sealed class DurationHistogramTests
{
    private static readonly TimeSpan s_itemTime = TimeSpan.FromMilliseconds(0.2);

    [Fact]
    public async Task DurationHistogram_ListenerEnabled_RecordsOneItemInSixtyFourWithItsRunTime()
    {
        string name = $"duration-{Guid.NewGuid():N}";
        using SlimThreadPool pool = TestPools.Create(workers: 1, configure: null, name: name);
        using var listener = new DurationListener(name);

        // One worker runs every item while the histogram is enabled, so exactly one in 64 is timed.
        for (int i = 0; i < 10 * WorkItemDurations.SampleInterval; i++)
        {
            pool.Queue(static () => Spin(s_itemTime));
        }

        await pool.WaitForIdleAsync().WaitAsync(Bounded.Timeout);

        Assert.Equal(10, listener.Records.Count);
        Assert.All(listener.Records, r =>
        {
            Assert.InRange(r.Seconds, s_itemTime.TotalSeconds, Bounded.Timeout.TotalSeconds);
            Assert.Null(r.Group);
        });
    }

    [Fact]
    public async Task DurationHistogram_GroupItems_TaggedWithTheGroupAndTheTurnNeverRecorded()
    {
        string name = $"duration-{Guid.NewGuid():N}";
        using SlimThreadPool pool = TestPools.Create(workers: 2, configure: null, name: name);
        using SlimThreadPoolGroup group = pool.CreateGroup(new SlimGroupOptions { Name = "timed", MaxConcurrency = 1 });
        using var listener = new DurationListener(name);

        for (int i = 0; i < 20 * WorkItemDurations.SampleInterval; i++)
        {
            group.Queue(static () => Spin(s_itemTime));
        }

        await group.WaitForIdleAsync().WaitAsync(Bounded.Timeout);

        // A turn runs up to 32 items (milliseconds here); recorded as one item, it would show up untagged. The worker
        // loop counts the turns as entries too, so a few samples fall on turns and are dropped.
        Assert.InRange(listener.Records.Count, 10, 20);
        Assert.All(listener.Records, r =>
        {
            Assert.Equal("timed", r.Group);
            Assert.InRange(r.Seconds, s_itemTime.TotalSeconds, Bounded.Timeout.TotalSeconds);
        });
    }

    [Fact]
    public async Task DurationHistogram_NoListener_RecordsNothingAndTimesNothing()
    {
        string name = $"duration-{Guid.NewGuid():N}";
        using SlimThreadPool pool = TestPools.Create(workers: 1, configure: null, name: name);
        using var listener = new DurationListener(name, enable: false);

        for (int i = 0; i < 10 * WorkItemDurations.SampleInterval; i++)
        {
            pool.Queue(static () => { });
        }

        await pool.WaitForIdleAsync().WaitAsync(Bounded.Timeout);

        Assert.Empty(listener.Records);
        Assert.Equal(0, pool.Durations.StartSample()); // off: no clock read, whatever the thread's count
    }

    private static void Spin(TimeSpan time)
    {
        long start = Stopwatch.GetTimestamp();
        while (Stopwatch.GetElapsedTime(start) < time)
        {
            Thread.SpinWait(10);
        }
    }

    /// <summary>Listens to one pool's duration histogram (by the pool's tag on its meter), keeping each record's group tag.</summary>
    private sealed class DurationListener : IDisposable
    {
        private readonly MeterListener _listener = new();

        public DurationListener(string poolName, bool enable = true)
        {
            _listener.InstrumentPublished = (instrument, listener) =>
            {
                if (enable && instrument.Name == "slimpool.work_item.duration" && instrument.Meter.Tags?.Contains(new(SlimThreadPool.PoolNameTag, poolName)) == true)
                {
                    listener.EnableMeasurementEvents(instrument);
                }
            };
            _listener.SetMeasurementEventCallback<double>((instrument, value, tags, _) =>
            {
                string? group = null;
                bool ours = false;
                foreach (KeyValuePair<string, object?> tag in tags)
                {
                    ours |= tag.Key == SlimThreadPool.PoolNameTag && (string?)tag.Value == poolName;
                    group = tag.Key == SlimThreadPool.GroupNameTag ? (string?)tag.Value : group;
                }

                if (ours)
                {
                    Records.Add((value, group));
                }
            });
            _listener.Start();
        }

        public ConcurrentBag<(double Seconds, string? Group)> Records { get; } = [];

        public void Dispose() => _listener.Dispose();
    }
}
