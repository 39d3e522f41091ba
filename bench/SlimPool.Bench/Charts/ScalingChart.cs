using ScottPlot;
using SlimPool.Bench.Reporting;

namespace SlimPool.Bench.Charts;

/// <summary><c>--cpus</c>: each pool's throughput on N cores relative to its own on the fewest, a line per case and pool, with the ideal line.</summary>
internal static class ScalingChart
{
    public const string FileName = "scaling";

    public static IReadOnlyList<string> Write(IReadOnlyList<CaseResult> results, string directory)
    {
        var curves = ScalingTable.Curves(results).Where(c => c.Points.Count >= 2).ToList();
        if (curves.Count == 0)
        {
            return [];
        }

        var plot = new Plot();
        foreach ((string name, string pool, IReadOnlyList<(int Cpus, double Speedup)> points) in curves)
        {
            var scatter = plot.Add.Scatter(points.Select(p => (double)p.Cpus).ToArray(), points.Select(p => p.Speedup).ToArray());
            scatter.LegendText = $"{name}: {pool}";
            scatter.MarkerSize = 7;
        }

        double first = curves.Min(c => c.Points[0].Cpus);
        double last = curves.Max(c => c.Points[^1].Cpus);
        var ideal = plot.Add.Line(first, 1, last, last / first);
        ideal.LinePattern = LinePattern.Dotted;
        ideal.Color = Colors.Gray;
        ideal.LegendText = "ideal";
        plot.Axes.Bottom.Label.Text = "cores (taskset)";
        plot.Axes.Left.Label.Text = "throughput relative to the fewest cores";
        plot.Title("Scaling with cores");
        plot.ShowLegend();
        return ChartFiles.Save(plot, directory, FileName, 900, 560);
    }
}
