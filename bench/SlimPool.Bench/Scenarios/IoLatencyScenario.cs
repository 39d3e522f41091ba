using System.Diagnostics;
using System.Globalization;
using SlimPool.Bench.Pools;
using SlimPool.Bench.Running;
using SlimPool.Bench.Work;

namespace SlimPool.Bench.Scenarios;

/// <summary>
/// Seed 001: items arrive at a fixed interval and each blocks for a long time (or awaits, in the async case); the
/// start latency is the time from queueing to starting. Both pools are capped at the same 10 threads (built-in:
/// <see cref="ThreadPool.SetMaxThreads"/>; SlimPool: MaxWorkers), which is what makes blocking hurt. The hinted
/// case blocks inside <c>RunBlocking</c>, which SlimPool uses to start a spare at once and the built-in pool
/// cannot be told.
/// </summary>
internal sealed class IoLatencyScenario : IScenario
{
    private const int Cap = 10;

    public string Name => "io-latency";

    public string Description => "seed 001: items arrive every few ms and block (or await); start latency, both pools capped at 10 threads";

    public IReadOnlyList<BenchCase> Cases(CaseContext context)
    {
        int items = context.Size(quick: 40, standard: 50, full: 1000);
        int interval = context.Size(quick: 2, standard: 2, full: 10);
        int block = context.Size(quick: 20, standard: 50, full: 500);
        string shape = string.Create(CultureInfo.InvariantCulture, $"{items} items, one every {interval} ms, each");
        PoolSetup capped = new(MaxThreads: Cap);
        var cases = new List<BenchCase>
        {
            new Case("blocking", $"{shape} blocking {block} ms", items, interval, block, Kind.Blocking) { Setup = capped, RatioFloor = 0.01 },
            new Case("blocking-hinted", $"{shape} blocking {block} ms inside RunBlocking", items, interval, block, Kind.Hinted) { Setup = capped, RatioFloor = 0.01, Extended = true },
        };
        if (context.Mode != BenchMode.Quick)
        {
            cases.Add(new Case("async", $"{shape} awaiting a {block} ms delay", items, interval, block, Kind.Async) { Setup = capped, RatioFloor = 0.01, Extended = true });
        }

        return cases;
    }

    public Measurement Measure<TPool>(BenchCase benchCase, TPool pool)
        where TPool : struct, IBenchPool
    {
        var c = (Case)benchCase;
        var latencies = new double[c.Items];
        var countdown = new StripedCountdown(c.Items);
        var items = new ArrivingItem<TPool>[c.Items];
        for (int i = 0; i < items.Length; i++)
        {
            items[i] = new ArrivingItem<TPool>(pool, c, latencies, i, countdown);
        }

        long origin = Stopwatch.GetTimestamp();
        for (int i = 0; i < c.Items; i++)
        {
            // Arrivals on a fixed schedule: sleep until the i-th arrival time.
            TimeSpan due = TimeSpan.FromMilliseconds((double)i * c.IntervalMs) - Stopwatch.GetElapsedTime(origin);
            if (due > TimeSpan.Zero)
            {
                Thread.Sleep(due);
            }

            items[i].QueuedAt = Stopwatch.GetTimestamp();
            pool.Queue(items[i]);
        }

        countdown.Wait("io-latency");
        Array.Sort(latencies);
        return new Measurement(
        [
            new("mean", "ms", latencies.Average(), "0.00"),
            new("p99", "ms", latencies[Math.Min(latencies.Length - 1, (int)(0.99 * latencies.Length))], "0.00"),
            new("max", "ms", latencies[^1], "0.00"),
            new("threads", "count", pool.ThreadCount, "0"),
        ]);
    }

    private enum Kind
    {
        Blocking,
        Hinted,
        Async,
    }

    private sealed record Case(string Key, string Label, int Items, int IntervalMs, int BlockMs, Kind Kind) : BenchCase(Key, Label);

    private sealed class ArrivingItem<TPool>(TPool pool, Case c, double[] latencies, int index, StripedCountdown countdown) : BenchWorkItem
        where TPool : struct, IBenchPool
    {
        public long QueuedAt { get; set; }

        public override void Execute()
        {
            latencies[index] = Stopwatch.GetElapsedTime(QueuedAt).TotalMilliseconds;
            switch (c.Kind)
            {
                case Kind.Blocking:
                    Thread.Sleep(c.BlockMs);
                    break;
                case Kind.Hinted:
                    pool.RunBlocking(() => Thread.Sleep(c.BlockMs));
                    break;
                default:
                    _ = AwaitThenSignal();
                    return;
            }

            countdown.Signal(index % countdown.Stripes);
        }

        private async Task AwaitThenSignal()
        {
            await Task.Delay(c.BlockMs).ConfigureAwait(false);
            countdown.Signal(index % countdown.Stripes);
        }
    }
}
