using SlimPool.Bench.Running;

namespace SlimPool.Bench.Reporting;

/// <summary>One pool's row in a case: its metrics (the first is primary) and, except for the reference, how it compares.</summary>
internal sealed record PoolResult(string Pool, IReadOnlyList<Metric> Metrics)
{
    /// <summary>Whether this row is the reference (the built-in pool at its best).</summary>
    public bool IsReference { get; init; }

    /// <summary>The primary metric against the reference's; null for the reference itself or without one.</summary>
    public Comparison? Comparison { get; init; }

    /// <summary>The reference's modes (the ratios use the fast one); null on other rows.</summary>
    public ModeSplit? Modes { get; init; }

    /// <summary>The built-in pool's state around each repetition, in order (null entries where not recorded).</summary>
    public IReadOnlyList<BuiltInPoolState?> BuiltInPool { get; init; } = [];
}
