namespace SlimPool.Bench.Reporting;

/// <summary>One scenario × variant × parameter × pool cell, with every repetition's wall time.</summary>
internal sealed record CellResult(
    string Scenario,
    string Variant,
    int Parameter,
    string Pool,
    int Items,
    double WorkSecondsPerItem,
    IReadOnlyList<double> WallSeconds)
{
    public Stats Wall => Stats.Of(WallSeconds);

    public double ItemsPerSecond => Items / Wall.Median;

    /// <summary>(items × work per item ÷ cores) ÷ wall time: the share of the machine spent in the work itself.</summary>
    public double ParallelEfficiency => Items * WorkSecondsPerItem / Environment.ProcessorCount / Wall.Median;
}
