namespace SlimPool.Bench.Charts;

/// <summary>One line: a name for the legend, a colour, and a y value per x position (NaN where absent).</summary>
internal sealed record ChartSeries(string Name, Rgb Color, IReadOnlyList<double> Values);
