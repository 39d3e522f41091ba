using SlimPool.Bench.Reporting;

namespace SlimPool.Bench.Running;

/// <summary>
/// When a cell has enough repetitions: once every pool's ratio to the reference has a 95% interval within a given
/// fraction of the ratio on both sides (BenchmarkDotNet stops a benchmark the same way, on its mean's interval).
/// The caller runs the least number of repetitions first and stops at the most regardless.
/// </summary>
internal static class AdaptiveStop
{
    /// <summary>
    /// Whether every comparison in <paramref name="cell"/> has its interval within ±<paramref name="halfWidth"/> of
    /// its ratio, and was computed at the confidence asked for (too few repetitions give a wider, weaker interval).
    /// A cell with no comparison (the reference alone) is precise enough at once.
    /// </summary>
    public static bool IsPreciseEnough(CaseResult cell, double halfWidth)
    {
        ArgumentNullException.ThrowIfNull(cell);
        foreach (PoolResult pool in cell.Pools)
        {
            if (pool.Comparison is not { } c)
            {
                continue;
            }

            if (c.Confidence < RatioEstimator.DefaultConfidence - 1e-9
                || c.Low < c.Ratio / (1 + halfWidth)
                || c.High > c.Ratio * (1 + halfWidth))
            {
                return false;
            }
        }

        return true;
    }
}
