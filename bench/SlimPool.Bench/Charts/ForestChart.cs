using ScottPlot;
using ScottPlot.TickGenerators;
using SlimPool.Bench.Reporting;

namespace SlimPool.Bench.Charts;

/// <summary>
/// The run in one picture: a row per cell and pool, the ratio to the built-in pool as a dot and its 95% interval as
/// a bar, colored by verdict, on a log axis with 1.0 marked (left of it: faster than the built-in pool).
/// </summary>
internal static class ForestChart
{
    public const string FileName = "ratios";

    public static IReadOnlyList<string> Write(IReadOnlyList<CaseResult> results, string directory)
    {
        var rows = results
            .SelectMany(r => r.Pools.Where(p => p.Comparison is not null).Select(p => (Label: Label(r, p), Comparison: p.Comparison!.Value)))
            .ToList();
        if (rows.Count == 0)
        {
            return [];
        }

        var plot = new Plot();
        var ticks = new List<Tick>();
        for (int i = 0; i < rows.Count; i++)
        {
            double y = rows.Count - 1 - i;
            Comparison c = rows[i].Comparison;
            Color color = ChartFiles.Of(c.Verdict);
            var bar = plot.Add.Line(Math.Log10(c.Low), y, Math.Log10(c.High), y);
            bar.Color = color;
            bar.LineWidth = 3;
            var dot = plot.Add.Marker(Math.Log10(c.Ratio), y);
            dot.Color = color;
            dot.Size = 9;
            ticks.Add(new Tick(y, rows[i].Label));
        }

        plot.Add.VerticalLine(0, 1, Colors.Black, LinePattern.Dashed);
        plot.Axes.Left.TickGenerator = new NumericManual([.. ticks]);
        plot.Axes.Bottom.TickGenerator = LogTicks.Ratio();
        plot.Axes.Bottom.Label.Text = "time ratio to ThreadPool at its best (log scale; left of 1: faster; bar: 95% interval)";
        plot.Title("SlimPool vs ThreadPool: ratio and 95% interval per cell (green win, gray tie, red loss)");
        return ChartFiles.Save(plot, directory, FileName, 1100, 120 + (22 * rows.Count));
    }

    private static string Label(CaseResult result, PoolResult pool) =>
        $"{result.Scenario} {result.Key}{(result.Cpus is int n ? $" ({n} cores)" : "")}{(pool.Pool == "SlimPool" ? "" : $" — {pool.Pool}")}";
}
