namespace SlimPool.Bench.Reporting;

/// <summary>How a pool compares with the reference on a cell's primary metric (lower is better).</summary>
internal enum Verdict
{
    /// <summary>The ratio's confidence interval lies below 1.0: faster than the reference.</summary>
    Win,

    /// <summary>The interval contains 1.0: no difference this run can show.</summary>
    Tie,

    /// <summary>The interval lies above 1.0: slower than the reference.</summary>
    Loss,
}
