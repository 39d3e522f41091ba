namespace SlimPool.Bench.Charts;

/// <summary>
/// A line chart over categorical x positions (drawn evenly spaced, labelled with <see cref="XLabels"/>): one
/// line per series, an optional dashed reference line, a legend.
/// </summary>
internal sealed record LineChart(string Title, string XTitle, string YTitle, IReadOnlyList<string> XLabels, IReadOnlyList<ChartSeries> Series)
{
    /// <summary>A dashed horizontal line, e.g. 1.0 for "same as the baseline".</summary>
    public double? ReferenceY { get; init; }
}
