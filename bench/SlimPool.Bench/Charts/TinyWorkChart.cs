using ScottPlot;
using SlimPool.Bench.Reporting;

namespace SlimPool.Bench.Charts;

/// <summary>tiny-work: the ratio to the built-in pool per work size (log–log), a line per pool and variant, intervals as bars.</summary>
internal static class TinyWorkChart
{
    public const string FileName = "tiny-work";

    public static IReadOnlyList<string> Write(IReadOnlyList<CaseResult> results, string directory)
    {
        var cells = results.Where(r => r.Scenario == "tiny-work" && r.Parameter is not null && r.Cpus is null).ToList();
        var series = cells
            .SelectMany(r => r.Pools.Where(p => p.Comparison is not null).Select(p => (Name: $"{p.Pool} ({r.Variant})", Size: r.Parameter!.Value, Comparison: p.Comparison!.Value)))
            .GroupBy(s => s.Name)
            .ToList();
        if (series.Count == 0 || series.All(s => s.Count() < 2))
        {
            return [];
        }

        var plot = new Plot();
        foreach (var line in series)
        {
            var points = line.OrderBy(p => p.Size).ToList();
            var scatter = plot.Add.Scatter(
                points.Select(p => Math.Log10(p.Size)).ToArray(),
                points.Select(p => Math.Log10(p.Comparison.Ratio)).ToArray());
            scatter.LegendText = line.Key;
            scatter.MarkerSize = 8;
            foreach (var point in points)
            {
                var bar = plot.Add.Line(Math.Log10(point.Size), Math.Log10(point.Comparison.Low), Math.Log10(point.Size), Math.Log10(point.Comparison.High));
                bar.Color = scatter.Color;
                bar.LineWidth = 2;
            }
        }

        plot.Add.HorizontalLine(0, 1, Colors.Black, LinePattern.Dashed);
        plot.Axes.Bottom.TickGenerator = LogTicks.Of([0.1, 1, 10, 100, 1000], "0.# 'µs'");
        plot.Axes.Left.TickGenerator = LogTicks.Ratio();
        plot.Axes.Bottom.Label.Text = "CPU work per item (log scale)";
        plot.Axes.Left.Label.Text = "time ratio to ThreadPool (below 1: faster)";
        plot.Title("tiny-work: SlimPool ÷ ThreadPool at its best, with 95% intervals");
        plot.ShowLegend();
        return ChartFiles.Save(plot, directory, FileName, 900, 560);
    }
}
