using System.CommandLine;
using System.Globalization;

namespace SlimPool.Bench;

/// <summary>The comparison program's command line (System.CommandLine), turned into <see cref="BenchSettings"/>.</summary>
internal sealed class CommandLine
{
    private readonly Option<string?> _scenario = new("--scenario", "-s") { Description = "Scenarios to run, comma-separated, or 'all' (default). Known: tiny-work, queue-drain, io-latency, thread-count, self-requeue, fan-out, wake-latency, idle-cpu, async-chain." };
    private readonly Option<string?> _pools = new("--pools", "-p") { Description = "Pools, comma-separated (default: ThreadPool, ThreadPool-unsafe, Locked+ARE, LockFree+ARE, SlimPool); 'all' adds every SlimPool queue × idle-wait combination and a ConcurrentQueue-based one." };
    private readonly Option<string?> _workers = new("--workers", "-w") { Description = "Worker counts, comma-separated: thread-count runs each (default 2,25,200); one value also sets the SlimPool worker count elsewhere (default: one per core)." };
    private readonly Option<string?> _repeat = new("--repeat", "-r") { Description = "Measured repetitions per cell after a warm-up (default 5; 2 with --quick)." };
    private readonly Option<string?> _ticks = new("--ticks") { Description = "tiny-work sizes in ticks of 100 ns, comma-separated (default 0,1,10,100,1000,10000; 0,10,100,1000 with --quick)." };
    private readonly Option<bool> _quick = new("--quick", "-q") { Description = "Small sizes and 2 repetitions: a smoke test of about 30 s." };
    private readonly Option<bool> _full = new("--full") { Description = "The seeds' sizes (for example io-latency 1000 items 10 ms apart blocking 500 ms, self-requeue 16M items); takes much longer." };
    private readonly Option<string> _json = new("--json") { Description = "Where to write all results as JSON (one record per scenario × case × pool, with every repetition).", DefaultValueFactory = _ => Path.Combine("bench-results", "results.json") };
    private readonly Option<string?> _monitor = new("--monitor") { Description = "Instead of the comparison: run a mixed workload on a SlimPool for N seconds (default 5) and print its SlimPool meter once a second, as dotnet-counters would.", Arity = ArgumentArity.ZeroOrOne };
    private readonly Option<string> _chart = new("--chart") { Description = "Where to write the tiny-work chart (PNG: ratio to ThreadPool per work size, a line per pool).", DefaultValueFactory = _ => Path.Combine("bench-results", "tiny-work.png") };

    public CommandLine()
    {
        Root = new RootCommand(
            "SlimPool comparison program: SlimPool against System.Threading.ThreadPool, side by side, in one run. " +
            "Each table shows a row per pool: medians with min–max over the repetitions, and the primary metric's ratio to ThreadPool (below 1.00x is better).")
        {
            _scenario, _pools, _workers, _repeat, _ticks, _quick, _full, _json, _chart, _monitor,
        };
    }

    public RootCommand Root { get; }

    /// <summary>The seconds <c>--monitor</c> asks for, or null when it is absent (an empty value means 5).</summary>
    public int? MonitorSeconds(ParseResult result)
    {
        if (result.GetResult(_monitor) is null)
        {
            return null;
        }

        string? value = result.GetValue(_monitor);
        int seconds = string.IsNullOrEmpty(value) ? 5 : Integer("--monitor", value);
        return seconds is >= 1 and <= 3600 ? seconds : throw new ArgumentException($"--monitor needs 1 to 3600 seconds, got {seconds}");
    }

    /// <summary>Reads the parsed options; throws <see cref="ArgumentException"/> with a one-line message on bad values.</summary>
    public BenchSettings Read(ParseResult result)
    {
        bool quick = result.GetValue(_quick);
        var settings = new BenchSettings
        {
            Quick = quick,
            Full = result.GetValue(_full),
            Repeat = result.GetValue(_repeat) is { } repeat ? Integer("--repeat", repeat) : quick ? 2 : 5,
            Workers = List(result.GetValue(_workers))?.Select(w => Integer("--workers", w)).ToArray(),
            Ticks = List(result.GetValue(_ticks))?.Select(t => Integer("--ticks", t)).ToArray(),
            Pools = List(result.GetValue(_pools)),
            Scenarios = List(result.GetValue(_scenario)),
            JsonPath = result.GetValue(_json),
            ChartPath = result.GetValue(_chart),
        };
        settings.Validate();
        return settings;
    }

    private static string[]? List(string? value) =>
        value?.Split(',', StringSplitOptions.RemoveEmptyEntries | StringSplitOptions.TrimEntries);

    private static int Integer(string option, string value) =>
        int.TryParse(value, NumberStyles.AllowLeadingSign, CultureInfo.InvariantCulture, out int n)
            ? n
            : throw new ArgumentException($"{option} needs integers, got '{value}'");
}
