namespace SlimPool.Bench.Reporting;

/// <summary>
/// One table of a scenario: a case with a row per pool. The first metric of each row is primary (lower is better)
/// and every non-reference row carries its ratio to the reference with an interval and a verdict.
/// </summary>
internal sealed record CaseResult(string Scenario, string Key, string Case, IReadOnlyList<PoolResult> Pools, string? Note = null)
{
    /// <summary>The variant this case belongs to (e.g. "capped"), for charts; null when none.</summary>
    public string? Variant { get; init; }

    /// <summary>The case's numeric parameter (e.g. µs of work per item), for charts; null when none.</summary>
    public double? Parameter { get; init; }

    /// <summary>The cores the case ran on (<c>--cpus</c>), or null for all of the machine's.</summary>
    public int? Cpus { get; init; }

    /// <summary>How every pool was capped for the case, in words; null when not capped.</summary>
    public string? Caps { get; init; }

    /// <summary>The wall time the cell took, every pool's repetitions and their child processes included.</summary>
    public TimeSpan Elapsed { get; init; }
}
