using System.Diagnostics;

namespace SlimPool.Bench.Scenarios;

/// <summary>Drives one io-latency run through any queue function and returns each item's start latency in ms.</summary>
internal static class IoLatencyRun
{
    /// <param name="queue">How to queue an item.</param>
    /// <param name="shape">Items, interval, blocking time.</param>
    /// <param name="async">Items await a delay instead of blocking.</param>
    /// <param name="hint">When set, blocking items block inside <see cref="SlimThreadPool.RunBlocking(Action)"/> of this pool.</param>
    public static double[] Measure(Action<Action> queue, IoLatencyShape shape, bool async, SlimThreadPool? hint = null)
    {
        var latencies = new double[shape.Items];
        var completion = new Completion(shape.Items);
        long origin = Stopwatch.GetTimestamp();
        for (int i = 0; i < shape.Items; i++)
        {
            // Arrivals on a fixed schedule: sleep until the i-th arrival time.
            TimeSpan due = TimeSpan.FromMilliseconds((double)i * shape.IntervalMs) - Stopwatch.GetElapsedTime(origin);
            if (due > TimeSpan.Zero)
            {
                Thread.Sleep(due);
            }

            int index = i;
            long queuedAt = Stopwatch.GetTimestamp();
            if (async)
            {
                queue(() => _ = RunAsync(latencies, index, queuedAt, shape.BlockMs, completion));
            }
            else
            {
                queue(() =>
                {
                    latencies[index] = Stopwatch.GetElapsedTime(queuedAt).TotalMilliseconds;
                    if (hint is null)
                    {
                        Thread.Sleep(shape.BlockMs);
                    }
                    else
                    {
                        hint.RunBlocking(() => Thread.Sleep(shape.BlockMs));
                    }

                    completion.Signal();
                });
            }
        }

        completion.Wait("io-latency");
        return latencies;
    }

    private static async Task RunAsync(double[] latencies, int index, long queuedAt, int blockMs, Completion completion)
    {
        latencies[index] = Stopwatch.GetElapsedTime(queuedAt).TotalMilliseconds;
        await Task.Delay(blockMs).ConfigureAwait(false);
        completion.Signal();
    }
}
