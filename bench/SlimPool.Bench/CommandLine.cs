using System.CommandLine;
using System.Globalization;
using SlimPool.Bench.Running;
using SlimPool.Bench.Scenarios;

namespace SlimPool.Bench;

/// <summary>The comparison program's command line (System.CommandLine), turned into <see cref="BenchSettings"/>.</summary>
internal sealed class CommandLine
{
    private readonly Option<string?> _scenario = new("--scenario", "-s") { Description = "Scenarios to run, comma-separated, or 'all' (default). Known: " + string.Join(", ", ScenarioCatalog.All.Select(s => s.Name)) + "." };
    private readonly Option<string?> _pools = new("--pools", "-p") { Description = "Pools, comma-separated (default: ThreadPool, SlimPool); 'all' adds the seed's view of the built-in pool (ThreadPool via IThreadPool), other SlimPool configurations and the naive pool. ThreadPool, the reference, always runs." };
    private readonly Option<string?> _repeat = new("--repeat", "-r") { Description = $"Measured repetitions per pool and cell, each after its own warm-up. Default: at least {BenchSettings.DefaultMinRepeat}, then until every ratio's 95% interval is within ±{BenchSettings.DefaultTargetHalfWidth:P0} or {BenchSettings.DefaultMaxRepeat} are done ({BenchSettings.QuickMinRepeat} to {BenchSettings.QuickMaxRepeat} with --quick); N: exactly N." };
    private readonly Option<string?> _isolation = new("--isolation") { Description = "'process' (default): each repetition in a fresh child process, pools alternating order; 'inproc': all in this process, for quick looks." };
    private readonly Option<string?> _cpus = new("--cpus") { Description = "Core counts, comma-separated (e.g. 1,2,4): runs each cell with the child process limited to the first N cores (taskset) and prints how each pool scales." };
    private readonly Option<string?> _work = new("--work") { Description = "tiny-work's work per item in µs, comma-separated (default 0.1,1,10,100,1000; 1 with --quick)." };
    private readonly Option<string?> _workers = new("--workers", "-w") { Description = "thread-count's worker counts, comma-separated (default 2,25,200)." };
    private readonly Option<bool> _quick = new("--quick", "-q") { Description = "A smoke run of under a minute: small sizes, each scenario's first case with the reference and SlimPool only (every case and row when --work or --workers lists cases), 3 repetitions." };
    private readonly Option<bool> _allCases = new("--all-cases") { Description = "Every case of every scenario at the default sizes (tiny-work 0.1 to 1000 µs, akka-pingpong at 1, 4×cores and 64 pairs, ...): about three times the default run." };
    private readonly Option<bool> _full = new("--full") { Description = "The seeds' sizes (self-requeue 16M items, io-latency 1000 items blocking 500 ms, tiny-work uncapped too); takes much longer." };
    private readonly Option<string> _json = new("--json") { Description = "Where to write all results as JSON (every repetition, ratios, intervals, verdicts, the machine).", DefaultValueFactory = _ => Path.Combine("bench-results", "results.json") };
    private readonly Option<string> _charts = new("--charts") { Description = "The folder for the charts, PNG and SVG (empty: none).", DefaultValueFactory = _ => "bench-results" };
    private readonly Option<string> _markdown = new("--markdown") { Description = "Where to write the summary table as Markdown (empty: none).", DefaultValueFactory = _ => Path.Combine("bench-results", "summary.md") };
    private readonly Option<string?> _monitor = new("--monitor") { Description = "Instead of the comparison: run a mixed workload on a SlimPool for N seconds (default 5) and print its SlimPool meter once a second, as dotnet-counters would.", Arity = ArgumentArity.ZeroOrOne };

    public CommandLine()
    {
        Root = new RootCommand(
            "SlimPool comparison program: SlimPool against System.Threading.ThreadPool at its best, side by side. " +
            "Each table shows a row per pool: medians with min–max over the repetitions, and the primary metric's ratio to ThreadPool " +
            "with a 95% confidence interval and a verdict (win: the interval lies below 1.00x, loss: above, tie: across).")
        {
            _scenario, _pools, _repeat, _isolation, _cpus, _work, _workers, _quick, _allCases, _full, _json, _charts, _markdown, _monitor,
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
        bool full = result.GetValue(_full);
        bool allCases = result.GetValue(_allCases);
        if (quick && full)
        {
            throw new ArgumentException("--quick and --full cannot be combined");
        }

        if (quick && allCases)
        {
            throw new ArgumentException("--quick and --all-cases cannot be combined");
        }

        int? repeat = result.GetValue(_repeat) is { } text ? Integer("--repeat", text) : null;
        var settings = new BenchSettings
        {
            Mode = quick ? BenchMode.Quick : full ? BenchMode.Full : BenchMode.Default,
            AllCases = allCases || full,
            MinRepeat = repeat ?? (quick ? BenchSettings.QuickMinRepeat : BenchSettings.DefaultMinRepeat),
            MaxRepeat = repeat ?? (quick ? BenchSettings.QuickMaxRepeat : BenchSettings.DefaultMaxRepeat),
            Isolation = result.GetValue(_isolation) switch
            {
                null or "process" => Isolation.Process,
                "inproc" => Isolation.InProcess,
                string other => throw new ArgumentException($"--isolation is 'process' or 'inproc', got '{other}'"),
            },
            Cpus = List(result.GetValue(_cpus))?.Select(c => Integer("--cpus", c)).ToArray(),
            WorkSizes = List(result.GetValue(_work))?.Select(w => Number("--work", w)).ToArray(),
            Workers = List(result.GetValue(_workers))?.Select(w => Integer("--workers", w)).ToArray(),
            Pools = List(result.GetValue(_pools)),
            Scenarios = List(result.GetValue(_scenario)),
            JsonPath = result.GetValue(_json),
            ChartDirectory = result.GetValue(_charts),
            MarkdownPath = result.GetValue(_markdown),
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

    private static double Number(string option, string value) =>
        double.TryParse(value, NumberStyles.Float, CultureInfo.InvariantCulture, out double n)
            ? n
            : throw new ArgumentException($"{option} needs numbers, got '{value}'");
}
