using System.Diagnostics.Metrics;
using SlimPool.Diagnostics;
using SlimPool.Tests.Infrastructure;

namespace SlimPool.Tests.Diagnostics;

/// <summary>
/// A metrics listener whose measurement callback throws (a listener's own bug, or an interrupt pending on the worker
/// meeting the lock of the collection it records into). The histograms are recorded on the workers, outside the
/// items' own try: the run-time histogram's throw went out of the worker's loop and ended the process, or out of a
/// group's turn, leaving the group's turn held and its other items never run; the queue-wait histogram's went out of
/// the item's wrapper before the item ran, which was then lost (a group's items are not sampled for the queue wait:
/// their turn is). The listener's exception is reported like an item's, once, and every item runs.
/// </summary>
public sealed class ThrowingListenerTests
{
    [Theory]
    [InlineData("slimpool.work_item.duration", false)]
    [InlineData("slimpool.work_item.duration", true)]
    [InlineData("slimpool.work_item.queue_wait", false)]
    public void Histogram_ListenerThrows_EveryItemRunsAndItsExceptionsAreReported(string instrumentName, bool inGroup)
    {
        string name = $"throwing-{Guid.NewGuid():N}";
        int reported = 0;
        using SlimThreadPool pool = TestPools.Create(workers: 1, configure: o => o.UnhandledException = e =>
        {
            if (e is ListenerException)
            {
                Interlocked.Increment(ref reported);
            }
        }, name: name);
        using SlimThreadPoolGroup group = pool.CreateGroup();
        int thrown = 0;
        using var listener = new MeterListener();
        listener.InstrumentPublished = (instrument, l) =>
        {
            if (instrument.Name == instrumentName && instrument.Meter.Tags?.Contains(new(SlimThreadPool.PoolNameTag, name)) == true)
            {
                l.EnableMeasurementEvents(instrument);
            }
        };
        listener.SetMeasurementEventCallback<double>((_, _, _, _) =>
        {
            Interlocked.Increment(ref thrown);
            throw new ListenerException();
        });
        listener.Start();

        int items = 4 * WorkItemDurations.SampleInterval;
        int ran = 0;
        for (int i = 0; i < items; i++)
        {
            if (inGroup)
            {
                group.Queue(() => Interlocked.Increment(ref ran));
            }
            else
            {
                pool.Queue(() => Interlocked.Increment(ref ran));
            }
        }

        Bounded.Until(() => Volatile.Read(ref ran) == items, "every item");
        Assert.True(Volatile.Read(ref thrown) > 0, "the listener was never called: the test measures nothing");
        Bounded.Until(() => Volatile.Read(ref reported) == Volatile.Read(ref thrown), "each listener exception reported once");
        Assert.Equal(1, pool.LiveWorkerCount);
    }

    private sealed class ListenerException() : Exception("the listener's own failure");
}
