using System.Diagnostics.Metrics;
using SlimPool.Tests.Infrastructure;

namespace SlimPool.Tests.Diagnostics;

/// <summary>Dispose against the shutdown task's continuation, with every core kept busy: alone, so the busy threads slow no other test.</summary>
[Collection(RunsAloneCollection.Name)]
public sealed class MeterShutdownRaceTests
{
    [Fact]
    public void Dispose_RacingTheShutdownContinuation_ReturnsOnlyAfterTheMeterIsDisposed()
    {
        // The last worker to exit runs the shutdown's continuation, which races Dispose's own finish; whichever loses
        // must still not return before the winner has disposed the meter. Busy threads on every core make the
        // disposing thread lose its core now and then, which is when the continuation wins.
        using var stop = new CancellationTokenSource();
        Thread[] hogs = [.. Enumerable.Range(0, Environment.ProcessorCount).Select(_ => new Thread(() =>
        {
            while (!stop.IsCancellationRequested)
            {
                Thread.SpinWait(1000);
            }
        }) { IsBackground = true })];
        foreach (Thread hog in hogs)
        {
            hog.Start();
        }

        for (int round = 0; round < 500; round++)
        {
            string name = $"metrics-dispose-{round}-{Guid.NewGuid():N}";
            int completed = 0;
            int published = 0;
            using var listener = new MeterListener
            {
                InstrumentPublished = (instrument, l) =>
                {
                    if (instrument.Meter.Name == SlimThreadPool.MeterName && instrument.Meter.Tags?.Contains(new(SlimThreadPool.PoolNameTag, name)) == true)
                    {
                        l.EnableMeasurementEvents(instrument);
                        Interlocked.Increment(ref published);
                    }
                },
                MeasurementsCompleted = (_, _) => Interlocked.Increment(ref completed),
            };
            listener.Start();
            var pool = new SlimThreadPool(new SlimThreadPoolOptions { WorkerCount = 2, Name = name });
            pool.Queue(() => { });

            pool.Dispose();

            Assert.Equal(Volatile.Read(ref published), Volatile.Read(ref completed)); // every instrument's measurements completed
            Assert.True(published > 0);
        }

        stop.Cancel();
        foreach (Thread hog in hogs)
        {
            Assert.True(hog.Join(Bounded.Timeout));
        }
    }
}
