using System.Globalization;
using SlimPool.Bench.Pools;
using SlimPool.Bench.Scenarios;
using Spectre.Console;

namespace SlimPool.Bench.Reporting;

/// <summary>What the user sees: the header, a progress line while a cell runs, and a table per case.</summary>
internal sealed class ResultConsole
{
    private readonly bool _showProgress = !Console.IsErrorRedirected;
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
            _console.Profile.Width = 160;
        }
        else
        {
            _console = AnsiConsole.Console;
        }
    }

    public void Header(BenchSettings settings, IReadOnlyList<PoolDefinition> pools, IReadOnlyList<IScenario> scenarios)
    {
        Console.WriteLine($"SlimPool comparison — {MachineInfo.Describe()}");
        string mode = settings.Quick ? "--quick sizes" : settings.Full ? "--full (the seeds') sizes" : "default sizes";
        Console.WriteLine($"{mode}; {settings.Repeat} repetitions per cell after a warm-up; scenarios: {string.Join(", ", scenarios.Select(s => s.Name))}");
        foreach (PoolDefinition pool in pools)
        {
            Console.WriteLine($"  {pool.Name,-18} {pool.Description}");
        }

        Console.WriteLine();
    }

    public void Progress(string message)
    {
        if (_showProgress)
        {
            Console.Error.Write($"\r\x1b[2K  running: {message}");
        }
    }

    public void ClearProgress()
    {
        if (_showProgress)
        {
            Console.Error.Write("\r\x1b[2K");
        }
    }

    public void Table(CaseResult result)
    {
        ClearProgress();
        var table = new Table { Border = TableBorder.Simple, Title = new TableTitle($"{result.Scenario}: {result.Case}") };
        if (result.Pools.Count == 0)
        {
            _console.MarkupLine($"[bold]{Markup.Escape(result.Scenario)}[/]: {Markup.Escape(result.Case)} — {Markup.Escape(result.Note ?? "no results")}");
            _console.WriteLine();
            return;
        }

        IReadOnlyList<Metric> columns = result.Pools[0].Metrics;
        table.AddColumn("pool");
        for (int i = 0; i < columns.Count; i++)
        {
            string header = $"{columns[i].Name} ({columns[i].Unit})" + (i == 0 && columns[i].Samples.Count > 1 ? " median (min–max)" : "");
            table.AddColumn(new TableColumn(Markup.Escape(header)).RightAligned());
        }

        bool hasBaseline = result.BaselineMedian(PoolCatalog.BaselineName) is not null;
        if (hasBaseline)
        {
            table.AddColumn(new TableColumn("vs ThreadPool").RightAligned());
        }

        foreach (PoolResult row in result.Pools)
        {
            var cells = new List<string> { Markup.Escape(row.Pool) };
            for (int i = 0; i < row.Metrics.Count; i++)
            {
                Metric metric = row.Metrics[i];
                Stats stats = metric.Stats;
                string text = stats.Median.ToString(metric.Format, CultureInfo.InvariantCulture);
                if (i == 0 && metric.Samples.Count > 1)
                {
                    text += string.Create(CultureInfo.InvariantCulture, $" ({stats.Min.ToString(metric.Format, CultureInfo.InvariantCulture)}–{stats.Max.ToString(metric.Format, CultureInfo.InvariantCulture)})");
                }

                cells.Add(Markup.Escape(text));
            }

            if (hasBaseline)
            {
                double ratio = result.Ratio(row, PoolCatalog.BaselineName)!.Value;
                string color = ratio < 0.95 ? "green" : ratio > 1.05 ? "red" : "default";
                cells.Add($"[{color}]{ratio.ToString("0.00", CultureInfo.InvariantCulture)}x[/]");
            }

            table.AddRow(cells.ToArray());
        }

        if (result.Note is not null)
        {
            table.Caption = new TableTitle(Markup.Escape(result.Note));
        }

        _console.Write(table);
        _console.WriteLine();
    }
}
