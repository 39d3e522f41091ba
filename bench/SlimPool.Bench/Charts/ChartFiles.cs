using ScottPlot;

namespace SlimPool.Bench.Charts;

/// <summary>Saves a ScottPlot chart as PNG and SVG side by side and returns the paths written.</summary>
internal static class ChartFiles
{
    public static IReadOnlyList<string> Save(Plot plot, string directory, string name, int width, int height)
    {
        Directory.CreateDirectory(directory);
        string png = Path.Combine(directory, name + ".png");
        string svg = Path.Combine(directory, name + ".svg");
        plot.SavePng(png, width, height);
        plot.SaveSvg(svg, width, height);
        return [png, svg];
    }

    /// <summary>The color of a verdict, the same in every chart.</summary>
    public static Color Of(Reporting.Verdict verdict) => verdict switch
    {
        Reporting.Verdict.Win => Colors.ForestGreen,
        Reporting.Verdict.Loss => Colors.Crimson,
        _ => Colors.DimGray,
    };
}
