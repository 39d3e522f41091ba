using System.Collections.Concurrent;
using System.Diagnostics;
using System.Diagnostics.Metrics;
using System.Globalization;
using System.Text;

namespace SlimPool.Bench.Reporting;

/// <summary>
/// <c>--monitor</c>: a mixed workload on a SlimPool named "orders" and its serial group "payments", with a MeterListener
/// on the SlimPool meter and an EventListener on the SlimPool event source, printed once a second the way
/// <c>dotnet-counters monitor --counters SlimPool</c> prints a meter (dotnet-counters itself is not in this machine's
/// NuGet copy): gauges as values, counters as a rate per second, the queue-wait and run-time histograms as percentiles
/// over the second (per pool and per group), then the second's starvation-guard firings and slow items as the events
/// name them.
/// </summary>
internal static class MetricsMonitor
{
    private const string PoolName = "orders";
    private const string GroupName = "payments";

    public static int Run(int seconds, TextWriter output)
    {
        var gauges = new ConcurrentDictionary<string, (string Unit, long Value)>();
        var histograms = new ConcurrentDictionary<string, ConcurrentQueue<double>>();
        using var listener = new MeterListener();
        // Only our pool's meter (its tags name the pool): the histograms then sample no other pool's items.
        listener.InstrumentPublished = (instrument, l) =>
        {
            if (instrument.Meter.Name == SlimThreadPool.MeterName
                && instrument.Meter.Tags?.Contains(new(SlimThreadPool.PoolNameTag, PoolName)) == true)
            {
                l.EnableMeasurementEvents(instrument);
            }
        };
        listener.SetMeasurementEventCallback<long>((instrument, value, tags, _) => gauges[Key(instrument, tags)] = (instrument.Unit ?? "", value));
        listener.SetMeasurementEventCallback<int>((instrument, value, tags, _) => gauges[Key(instrument, tags)] = (instrument.Unit ?? "", value));
        listener.SetMeasurementEventCallback<double>((instrument, value, tags, _) => histograms.GetOrAdd(Key(instrument, tags), _ => new()).Enqueue(value));
        listener.Start();
        using var events = new PoolEvents(PoolName);

        using var pool = new SlimThreadPool(new SlimThreadPoolOptions
        {
            Name = PoolName,
            BoundedCapacity = 10_000,
            UnhandledException = _ => { },
            SlowItemThreshold = TimeSpan.FromMilliseconds(50),
        });
        using SlimThreadPoolGroup group = pool.CreateGroup(new SlimGroupOptions { Name = GroupName, MaxConcurrency = 1 });
        using var stop = new CancellationTokenSource(TimeSpan.FromSeconds(seconds));
        var producer = new Thread(() => Produce(pool, group, stop.Token)) { IsBackground = true, Name = "monitor producer" };
        producer.Start();

        var previous = new Dictionary<string, long>();
        var clock = Stopwatch.StartNew();
        for (int second = 1; second <= seconds; second++)
        {
            Thread.Sleep(TimeSpan.FromSeconds(second) - clock.Elapsed is { } wait && wait > TimeSpan.Zero ? wait : TimeSpan.Zero);
            listener.RecordObservableInstruments();
            output.WriteLine($"[{SlimThreadPool.MeterName}]  (second {second} of {seconds})");
            foreach ((string key, (string unit, long value)) in gauges.OrderBy(g => g.Key, StringComparer.Ordinal))
            {
                (string name, string tag) = Split(key);
                bool isCounter = name.Contains(".work_item.", StringComparison.Ordinal);
                long shown = isCounter ? value - previous.GetValueOrDefault(key) : value;
                previous[key] = value;
                output.WriteLine($"    {name} ({unit}{(isCounter ? " / 1 sec" : "")})");
                output.WriteLine($"        {tag,-44}{shown.ToString("N0", CultureInfo.InvariantCulture),16}");
            }

            foreach (string instrument in new[] { "slimpool.work_item.queue_wait", "slimpool.work_item.duration" })
            {
                output.WriteLine($"    {instrument} (s)");
                foreach ((string key, ConcurrentQueue<double> values) in histograms.Where(h => Split(h.Key).Name == instrument).OrderBy(h => h.Key, StringComparer.Ordinal))
                {
                    double[] sorted = Drain(values);
                    foreach (int percentile in new[] { 50, 95, 99 })
                    {
                        string label = $"{Split(key).Tag},Percentile={percentile}";
                        output.WriteLine($"        {label,-64}{Percentile(sorted, percentile).ToString("0.0000000", CultureInfo.InvariantCulture),16}");
                    }
                }
            }

            output.WriteLine($"[{SlimThreadPool.MeterName} events]");
            output.WriteLine($"    starvation guard fired: {events.TakeGuardFirings()}; slow items: {events.TakeSlowItems()}");
        }

        stop.Cancel();
        return producer.Join(TimeSpan.FromSeconds(30)) ? 0 : 1;
    }

    // Bursts of short items (0–20 µs of spinning), one in 10,000 throwing and one in 1,000 cancelled, queued with
    // Queue, which blocks while the bounded queue is full (back-pressure), one in 20 to the serial group; a pause after
    // every burst, and once every 25 bursts an item that holds its worker for 80 ms (the slow-item detector's case).
    private static void Produce(SlimThreadPool pool, SlimThreadPoolGroup group, CancellationToken stop)
    {
        using var cancelled = new CancellationTokenSource();
        cancelled.Cancel();
        var random = new Random(42);
        long n = 0;
        for (int burst = 0; !stop.IsCancellationRequested; burst++)
        {
            for (int i = 0; i < 20_000; i++, n++)
            {
                int spin = random.Next(0, 200);
                if (n % 1_000 == 0)
                {
                    pool.Queue(() => Thread.SpinWait(spin), cancelled.Token);
                }
                else if (n % 10_000 == 1)
                {
                    pool.Queue(static () => throw new InvalidOperationException("monitor: an item that fails"));
                }
                else if (n % 20 == 2)
                {
                    group.Queue(static s => Thread.SpinWait((int)s!), spin);
                }
                else
                {
                    pool.Queue(static s => Thread.SpinWait((int)s!), spin);
                }
            }

            if (burst % 25 == 0)
            {
                pool.Queue(SlowReport);
            }

            Thread.Sleep(20);
        }
    }

    private static void SlowReport() => Thread.Sleep(80);

    private static string Key(Instrument instrument, ReadOnlySpan<KeyValuePair<string, object?>> tags)
    {
        var tag = new StringBuilder();
        foreach (KeyValuePair<string, object?> pair in tags)
        {
            tag.Append(tag.Length == 0 ? "" : ",").Append(pair.Key).Append('=').Append(pair.Value);
        }

        return $"{instrument.Name}|{tag}";
    }

    private static (string Name, string Tag) Split(string key) => key.IndexOf('|', StringComparison.Ordinal) is int bar and >= 0
        ? (key[..bar], key[(bar + 1)..])
        : (key, "");

    private static double[] Drain(ConcurrentQueue<double> queue)
    {
        var values = new List<double>();
        while (queue.TryDequeue(out double value))
        {
            values.Add(value);
        }

        values.Sort();
        return [.. values];
    }

    private static double Percentile(double[] sorted, int percentile) =>
        sorted.Length == 0 ? 0 : sorted[Math.Min(sorted.Length - 1, (int)(sorted.Length * percentile / 100.0))];
}
