using System.Diagnostics;
using System.Globalization;
using SlimPool.Bench.Pools;
using SlimPool.Bench.Reporting;

namespace SlimPool.Bench.Scenarios;

/// <summary>
/// Seed 001: items arrive at a fixed interval and each blocks for a long time; start latency is the time from
/// queueing to starting. The built-in pool runs capped at 10 and at 20 threads in a child process
/// (<see cref="ThreadPool.SetMaxThreads"/> is process-wide), blocking and async; SlimPool runs the same
/// blocking items as they are.
/// </summary>
internal sealed class IoLatencyScenario : IScenario
{
    public const string ChildSwitch = "--child-io-latency";

    public string Name => "io-latency";

    public string Description => "seed 001: items arrive every few ms and block; start latency, built-in pool capped at 10/20 threads vs SlimPool";

    public IEnumerable<CaseResult> Run(ScenarioContext context)
    {
        var shape = new IoLatencyShape(
            Items: context.Size(quick: 40, standard: 100, full: 1000),
            IntervalMs: context.Size(quick: 2, standard: 2, full: 10),
            BlockMs: context.Size(quick: 20, standard: 50, full: 500));
        string label = string.Create(CultureInfo.InvariantCulture, $"{shape.Items} items, one every {shape.IntervalMs} ms, each blocking {shape.BlockMs} ms");
        var rows = new List<PoolResult>();

        foreach ((string name, int maxThreads, bool async) in new[] { ("ThreadPool cap 10", 10, false), ("ThreadPool cap 20", 20, false), ("ThreadPool cap 10 async", 10, true) })
        {
            context.Report($"io-latency {label}: {name} (child process)");
            rows.Add(Row(name, RunChild(shape, maxThreads, async)));
        }

        // The selected pools as they are (the seed configurations have no starvation guard). At --full sizes a
        // 2-worker pool would block for minutes, so only the rows below run there.
        foreach (PoolDefinition definition in context.Settings.Full ? [] : context.Pools.Where(p => !p.Name.StartsWith(PoolCatalog.BaselineName, StringComparison.Ordinal)))
        {
            context.Report($"io-latency {label}: {definition.Name}");
            using IThreadPool pool = definition.Create(context.Settings.SingleWorkerCount);
            rows.Add(Row($"{definition.Name} ({pool.WorkerCount} workers, blocking)", IoLatencyRun.Measure(pool.Queue, shape, async: false)));
        }

        foreach (bool hinted in new[] { true, false })
        {
            string name = hinted ? "SlimPool (10 workers, RunBlocking)" : "SlimPool (10 workers, no hint: guard)";
            context.Report($"io-latency {label}: {name}");
            using var ten = new SlimThreadPool(new SlimThreadPoolOptions { WorkerCount = 10, MaxWorkers = 256 });
            rows.Add(Row(name, IoLatencyRun.Measure(ten.Queue, shape, async: false, hint: hinted ? ten : null)));
        }

        context.Report($"io-latency {label}: SlimPool 1 worker async");
        using (var single = new SlimThreadPool(new SlimThreadPoolOptions { WorkerCount = 1 }))
        {
            rows.Add(Row("SlimPool (1 worker, async)", IoLatencyRun.Measure(single.Queue, shape, async: true)));
        }

        yield return new CaseResult(Name, label, rows,
            "RunBlocking: a spare worker covers for each blocked one at once (MaxWorkers 256); no hint: the starvation guard adds one after 50 ms without progress.");
    }

    /// <summary>The child process's entry: cap the built-in pool, run, print the latencies in ms, one per line.</summary>
    public static int RunChild(string[] args)
    {
        var shape = new IoLatencyShape(int.Parse(args[1], CultureInfo.InvariantCulture), int.Parse(args[2], CultureInfo.InvariantCulture), int.Parse(args[3], CultureInfo.InvariantCulture));
        int maxThreads = int.Parse(args[4], CultureInfo.InvariantCulture);
        bool async = args[5] == "async";
        ThreadPool.GetMinThreads(out int minWorkers, out int minIo);
        if (!ThreadPool.SetMinThreads(Math.Min(minWorkers, maxThreads), Math.Min(minIo, maxThreads)) || !ThreadPool.SetMaxThreads(maxThreads, maxThreads))
        {
            Console.Error.WriteLine($"could not cap the thread pool at {maxThreads}");
            return 1;
        }

        foreach (double latency in IoLatencyRun.Measure(static work => ThreadPool.UnsafeQueueUserWorkItem(static w => w(), work, preferLocal: false), shape, async))
        {
            Console.WriteLine(latency.ToString("R", CultureInfo.InvariantCulture));
        }

        return 0;
    }

    private static PoolResult Row(string name, IReadOnlyList<double> latencies)
    {
        double[] sorted = [.. latencies.Order()];
        return new PoolResult(name,
        [
            new Metric("avg", "ms", [sorted.Average()]),
            new Metric("p99", "ms", [sorted[Math.Min(sorted.Length - 1, (int)(0.99 * sorted.Length))]]),
            new Metric("max", "ms", [sorted[^1]]),
        ]);
    }

    private static double[] RunChild(IoLatencyShape shape, int maxThreads, bool async)
    {
        string self = Environment.ProcessPath ?? throw new InvalidOperationException("cannot find this program's path to start a child process");
        var start = new ProcessStartInfo(self)
        {
            RedirectStandardOutput = true,
            RedirectStandardError = true,
            UseShellExecute = false,
        };
        foreach (string arg in new[] { ChildSwitch, $"{shape.Items}", $"{shape.IntervalMs}", $"{shape.BlockMs}", $"{maxThreads}", async ? "async" : "blocking" })
        {
            start.ArgumentList.Add(arg);
        }

        using Process child = Process.Start(start) ?? throw new InvalidOperationException("could not start the child process");
        Task<string> error = child.StandardError.ReadToEndAsync();
        string output = child.StandardOutput.ReadToEnd();
        if (!child.WaitForExit(TimeSpan.FromMinutes(10)) || child.ExitCode != 0)
        {
            throw new InvalidOperationException($"io-latency child process failed ({(child.HasExited ? child.ExitCode : "timed out")}): {error.Result}");
        }

        return [.. output.Split('\n', StringSplitOptions.RemoveEmptyEntries).Select(l => double.Parse(l, CultureInfo.InvariantCulture))];
    }
}
