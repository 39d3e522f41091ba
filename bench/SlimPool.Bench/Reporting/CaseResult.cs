namespace SlimPool.Bench.Reporting;

/// <summary>
/// One table of a scenario: a case (work size, variant, worker count...) with a row per pool. The first metric
/// of each row is the primary one: lower is better, and the table shows its ratio to the ThreadPool row.
/// </summary>
internal sealed record CaseResult(string Scenario, string Case, IReadOnlyList<PoolResult> Pools, string? Note = null)
{
    /// <summary>The variant this case belongs to (e.g. "cap 10,000"), for charts; null when the scenario has none.</summary>
    public string? Variant { get; init; }

    /// <summary>The case's numeric parameter (e.g. ticks of work per item), for charts; null when none.</summary>
    public double? Parameter { get; init; }

    /// <summary>The primary metric's median for the baseline pool, if that pool ran in this case.</summary>
    public double? BaselineMedian(string baseline) =>
        Pools.FirstOrDefault(p => p.Pool == baseline)?.Metrics[0].Stats.Median;

    /// <summary>The primary metric's median ratio to the baseline's, or null without a baseline.</summary>
    public double? Ratio(PoolResult pool, string baseline) =>
        BaselineMedian(baseline) is double reference && reference > 0 ? pool.Metrics[0].Stats.Median / reference : null;
}
