namespace SlimPool.Bench.Reporting;

/// <summary>One measured quantity of a cell (for example wall time), with every repetition's value.</summary>
/// <param name="Name">Short name, shown as a column header and written to JSON.</param>
/// <param name="Unit">Unit of the samples, e.g. "ms", "items/s", "%".</param>
/// <param name="Samples">One value per repetition (or per observation, for latency distributions).</param>
/// <param name="Format">.NET format string for the table.</param>
internal sealed record Metric(string Name, string Unit, IReadOnlyList<double> Samples, string Format = "0.0")
{
    public Stats Stats => Stats.Of(Samples);
}
