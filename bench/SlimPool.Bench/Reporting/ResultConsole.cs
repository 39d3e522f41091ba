using System.Globalization;
using SlimPool.Bench.Pools;
using SlimPool.Bench.Running;
using SlimPool.Bench.Scenarios;
using Spectre.Console;

namespace SlimPool.Bench.Reporting;

/// <summary>What the user sees: the header, a progress line while a cell runs, a table per cell, and the summary.</summary>
internal sealed class ResultConsole
{
    private readonly bool _showProgress = !Console.IsOutputRedirected;
    private readonly IAnsiConsole _console;

    public ResultConsole()
    {
        if (Console.IsOutputRedirected)
        {
            // Redirected output (CI logs, files): plain text, no escape codes, wide tables instead of 80 columns.
            _console = AnsiConsole.Create(new AnsiConsoleSettings
            {
                Ansi = AnsiSupport.No,
                ColorSystem = ColorSystemSupport.NoColors,
                Out = new AnsiConsoleOutput(Console.Out),
            });
            _console.Profile.Width = 180;
        }
        else
        {
            _console = AnsiConsole.Console;
        }
    }

    public void Header(BenchSettings settings, IReadOnlyList<PoolDefinition> pools, IReadOnlyList<IScenario> scenarios)
    {
        Console.WriteLine($"SlimPool comparison — {MachineInfo.Describe()}");
        string isolation = settings.Isolation == Isolation.Process ? "each in a fresh child process, pools alternating order" : "all in this process (--isolation inproc: a quick look)";
        Console.WriteLine($"{settings.Mode.ToString().ToLowerInvariant()} sizes; {settings.RepeatText} repetitions per pool and cell, {isolation}; scenarios: {string.Join(", ", scenarios.Select(s => s.Name))}");
        if (settings.Cpus is { } cpus)
        {
            Console.WriteLine($"cores per cell: {string.Join(", ", cpus)} (taskset)");
        }

        foreach (PoolDefinition pool in pools)
        {
            Console.WriteLine($"  {pool.Name,-26} {pool.Description}");
        }

        Console.WriteLine("Ratios are SlimPool ÷ ThreadPool on each table's first metric (lower is better), Hodges–Lehmann estimate with a 95% interval; win/loss when the interval lies below/above 1.00x, tie otherwise.");
        Console.WriteLine();
    }

    public void Calibration(double nanosecondsPerIteration) =>
        Console.WriteLine(string.Create(CultureInfo.InvariantCulture, $"work loop: {nanosecondsPerIteration:0.000} ns per iteration (calibrated once; every child runs the same iteration counts)"));

    public void Skipped(string message)
    {
        Console.WriteLine($"skipped: {message}");
    }

    /// <summary>
    /// Runs <paramref name="run"/> under a progress bar (done, planned, elapsed, time left) at the foot of the
    /// console, the tables printed above it; with output redirected (CI logs, files), without one.
    /// </summary>
    public T WithProgress<T>(IReadOnlyList<int> poolsPerCell, int maxRepeat, Func<RunProgress, T> run)
    {
        if (!_showProgress)
        {
            return run(new RunProgress(null, poolsPerCell, maxRepeat));
        }

        return _console.Progress()
            .AutoClear(true)
            .Columns(new TaskDescriptionColumn { Alignment = Justify.Left }, new ProgressBarColumn(), new PercentageColumn(), new ElapsedTimeColumn(), new RemainingTimeColumn())
            .Start(context =>
            {
                ProgressTask task = context.AddTask("starting");
                var progress = new RunProgress(task, poolsPerCell, maxRepeat);
                task.MaxValue = progress.InitialPlan;
                return run(progress);
            });
    }

    public void Table(CaseResult result)
    {
        string title = $"{result.Scenario}: {result.Case}" + (result.Cpus is int n ? $" — {n} cores" : "");
        var table = new Table { Border = TableBorder.Simple, Title = new TableTitle(Markup.Escape(title)) };
        IReadOnlyList<Metric> columns = result.Pools[0].Metrics;
        table.AddColumn("pool");
        for (int i = 0; i < columns.Count; i++)
        {
            string header = $"{columns[i].Name} ({columns[i].Unit})" + (i == 0 ? " median (min–max)" : " median");
            table.AddColumn(new TableColumn(Markup.Escape(header)).RightAligned());
        }

        table.AddColumn(new TableColumn("vs ThreadPool [[95% CI]]").RightAligned());
        table.AddColumn("verdict");
        foreach (PoolResult row in result.Pools)
        {
            var cells = new List<string> { Markup.Escape(row.Pool) };
            for (int i = 0; i < row.Metrics.Count; i++)
            {
                Metric metric = row.Metrics[i];
                Stats stats = metric.Stats;
                string text = Format(stats.Median, metric.Format);
                if (i == 0)
                {
                    text += $" ({Format(stats.Min, metric.Format)}–{Format(stats.Max, metric.Format)})";
                }

                cells.Add(Markup.Escape(text));
            }

            cells.Add(row.Comparison is { } c ? Markup.Escape(Text.Ratio(c)) : row.IsReference ? Markup.Escape(Text.Reference(row)) : "");
            cells.Add(row.Comparison is { } v ? $"[{Color(v.Verdict)}]{Text.Verdict(v.Verdict)}[/]" : "");
            table.AddRow([.. cells]);
        }

        string? caption = string.Join("; ", new[] { result.Caps, result.Note }.Where(s => s is not null));
        if (!string.IsNullOrEmpty(caption))
        {
            table.Caption = new TableTitle(Markup.Escape(caption));
        }

        _console.Write(table);
        _console.WriteLine();
    }

    /// <summary>The closing summary: a line per cell and pool, with the verdict, and the core-count scaling when asked for.</summary>
    public void Summary(BenchReport report)
    {
        Console.WriteLine("Summary (each pool against ThreadPool at its best):");
        Console.WriteLine(SummaryTable.Text(report.Results));
        if (report.Settings.Cpus is { Count: > 0 })
        {
            Console.WriteLine("Scaling (throughput relative to each pool's own on the fewest cores measured):");
            Console.WriteLine(ScalingTable.Text(report.Results));
        }
    }

    private static string Format(double value, string format) => value.ToString(format, CultureInfo.InvariantCulture);

    private static string Color(Verdict verdict) => verdict switch
    {
        Verdict.Win => "green",
        Verdict.Loss => "red",
        _ => "default",
    };
}
