using System.Diagnostics.Metrics;
using SlimPool.Tests.Infrastructure;

namespace SlimPool.Tests.Lifecycle;

/// <summary>
/// While a listener has the queue-wait histogram on, one item in 64 is stamped when queued (a wrapper of the pool's own).
/// An abandon still hands back each item as the caller queued it (guarantee 14): an <see cref="IThreadPoolWorkItem"/>
/// as itself, a delegate with its state (found by an adversarial hunt: a stamped <c>IThreadPoolWorkItem</c> came back as
/// the pool's internal delegate, its state the item).
/// </summary>
public sealed class HandBackWhileTimedTests
{
    [Fact]
    public async Task Abandon_WithTheQueueWaitHistogramOn_HandsBackEachItemAsTheCallerQueuedIt()
    {
        string name = $"timed-handback-{Guid.NewGuid():N}";
        using var listener = new MeterListener();
        listener.InstrumentPublished = (instrument, l) =>
        {
            // This pool's histogram only: other tests' pools would otherwise stamp their items too.
            if (instrument.Name == "slimpool.work_item.queue_wait" && instrument.Meter.Tags?.Any(t => t.Key == SlimThreadPool.PoolNameTag && (string?)t.Value == name) == true)
            {
                l.EnableMeasurementEvents(instrument);
            }
        };
        listener.SetMeasurementEventCallback<double>(static (_, _, _, _) => { });
        listener.Start();

        SlimThreadPool pool = TestPools.Create(workers: 1, name: name);
        using var blocked = new BlockedWorkers(pool);
        const int Items = 256;
        var natives = new HashSet<IThreadPoolWorkItem>(ReferenceEqualityComparer.Instance);
        var states = new HashSet<object>(ReferenceEqualityComparer.Instance);
        Action<object?> callback = static _ => { };
        for (int i = 0; i < Items; i++)
        {
            var native = new NativeItem();
            natives.Add(native);
            pool.Queue(native, preferLocal: false);
            object state = new();
            states.Add(state);
            pool.Queue(callback, state);
        }

        Task<ShutdownResult> shutdown = pool.ShutdownAsync(ShutdownMode.Abandon);
        blocked.Release();
        ShutdownResult result = await shutdown.WaitAsync(Bounded.Timeout);

        Assert.Equal(2 * Items, result.AbandonedCount);
        var wrong = result.AbandonedItems
            .Where(a => !(a.Callback is IThreadPoolWorkItem native && natives.Contains(native) && a.State is null)
                && !(ReferenceEquals(a.Callback, callback) && a.State is { } state && states.Contains(state)))
            .ToList();
        Assert.True(wrong.Count == 0, $"{wrong.Count} of {2 * Items} items came back as {string.Join(", ", wrong.Select(w => $"{w.Callback.GetType().Name} (state {w.State?.GetType().Name ?? "null"})").Distinct())}");
    }

    private sealed class NativeItem : IThreadPoolWorkItem
    {
        public void Execute()
        {
        }
    }
}
