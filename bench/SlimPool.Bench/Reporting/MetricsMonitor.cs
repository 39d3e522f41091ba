using System.Collections.Concurrent;
using System.Diagnostics;
using System.Diagnostics.Metrics;
using System.Globalization;

namespace SlimPool.Bench.Reporting;

/// <summary>
/// <c>--monitor</c>: a mixed workload on a SlimPool named "orders" with a MeterListener on the SlimPool meter,
/// printed once a second the way <c>dotnet-counters monitor --counters SlimPool</c> prints it (dotnet-counters
/// itself is not in this machine's NuGet copy): gauges as values, counters as a rate per second, the queue-wait
/// histogram as percentiles over the second.
/// </summary>
internal static class MetricsMonitor
{
    private const string PoolName = "orders";

    public static int Run(int seconds, TextWriter output)
    {
        var gauges = new ConcurrentDictionary<string, (string Unit, long Value)>();
        var queueWaits = new ConcurrentQueue<double>();
        using var listener = new MeterListener();
        // Only our pool's meter (its tags name the pool): the histogram then stamps no other pool's items.
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
        listener.SetMeasurementEventCallback<double>((_, value, _, _) => queueWaits.Enqueue(value));
        listener.Start();

        using var pool = new SlimThreadPool(new SlimThreadPoolOptions { Name = PoolName, BoundedCapacity = 10_000, UnhandledException = _ => { } });
        using var stop = new CancellationTokenSource(TimeSpan.FromSeconds(seconds));
        var producer = new Thread(() => Produce(pool, stop.Token)) { IsBackground = true, Name = "monitor producer" };
        producer.Start();

        var previous = new Dictionary<string, long>();
        var clock = Stopwatch.StartNew();
        for (int second = 1; second <= seconds; second++)
        {
            Thread.Sleep(TimeSpan.FromSeconds(second) - clock.Elapsed is { } wait && wait > TimeSpan.Zero ? wait : TimeSpan.Zero);
            listener.RecordObservableInstruments();
            double[] waits = Drain(queueWaits);
            output.WriteLine($"[{SlimThreadPool.MeterName}]  (second {second} of {seconds})");
            foreach ((string key, (string unit, long value)) in gauges.OrderBy(g => g.Key, StringComparer.Ordinal))
            {
                (string name, string tag) = Split(key);
                bool isCounter = name.StartsWith("slimpool.work_item.", StringComparison.Ordinal);
                long shown = isCounter ? value - previous.GetValueOrDefault(key) : value;
                previous[key] = value;
                output.WriteLine($"    {name} ({unit}{(isCounter ? " / 1 sec" : "")})");
                output.WriteLine($"        {tag,-44}{shown.ToString("N0", CultureInfo.InvariantCulture),16}");
            }

            output.WriteLine("    slimpool.work_item.queue_wait (s)");
            foreach (int percentile in new[] { 50, 95, 99 })
            {
                string label = $"{SlimThreadPool.PoolNameTag}={PoolName},Percentile={percentile}";
                output.WriteLine($"        {label,-44}{Percentile(waits, percentile).ToString("0.0000000", CultureInfo.InvariantCulture),16}");
            }
        }

        stop.Cancel();
        return producer.Join(TimeSpan.FromSeconds(30)) ? 0 : 1;
    }

    // Bursts of short items (0–20 µs of spinning), one in 10,000 throwing and one in 1,000 cancelled, queued with
    // Queue, which blocks while the bounded queue is full (back-pressure); a pause after every burst.
    private static void Produce(SlimThreadPool pool, CancellationToken stop)
    {
        using var cancelled = new CancellationTokenSource();
        cancelled.Cancel();
        var random = new Random(42);
        long n = 0;
        while (!stop.IsCancellationRequested)
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
                else
                {
                    pool.Queue(static s => Thread.SpinWait((int)s!), spin);
                }
            }

            Thread.Sleep(20);
        }
    }

    private static string Key(Instrument instrument, ReadOnlySpan<KeyValuePair<string, object?>> tags)
    {
        string tag = tags.Length > 0 ? $"{tags[0].Key}={tags[0].Value}" : "";
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
