using System.Globalization;
using ScottPlot;
using ScottPlot.TickGenerators;

namespace SlimPool.Bench.Charts;

/// <summary>Tick labels for axes that plot log10 of the value (ScottPlot draws the positions; the labels show the values).</summary>
internal static class LogTicks
{
    public static NumericManual Ratio() => Of([0.1, 0.2, 0.5, 1, 2, 5, 10], "0.##'x'");

    public static NumericManual Of(IEnumerable<double> values, string format)
    {
        var generator = new NumericManual();
        foreach (double value in values)
        {
            generator.AddMajor(Math.Log10(value), value.ToString(format, CultureInfo.InvariantCulture));
        }

        return generator;
    }
}
