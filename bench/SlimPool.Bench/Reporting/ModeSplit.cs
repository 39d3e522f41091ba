namespace SlimPool.Bench.Reporting;

/// <summary>
/// A reference's repetitions split into its fast mode and, when it has one, its slow mode. The built-in pool is
/// bimodal on some work (one million empty items from one outside thread: 24–29 ms in one state, 76–174 ms in
/// another, within one process); every ratio is taken against its fast mode, its best state.
/// </summary>
/// <param name="Fast">The repetitions of the fast mode (all of them when there is one mode).</param>
/// <param name="Slow">The repetitions of the slow mode; empty when there is one mode.</param>
internal sealed record ModeSplit(IReadOnlyList<double> Fast, IReadOnlyList<double> Slow)
{
    /// <summary>The least ratio between the slowest fast repetition and the fastest slow one that makes two modes.</summary>
    public const double MinimumGap = 1.5;

    /// <summary>The least repetitions each mode needs: a single outlier is not a mode.</summary>
    public const int MinimumCount = 2;

    public bool IsBimodal => Slow.Count > 0;

    /// <summary>
    /// Splits <paramref name="samples"/> (lower is better) at the widest gap between neighbours in sorted order,
    /// when that gap is at least <see cref="MinimumGap"/>× and leaves at least <see cref="MinimumCount"/>
    /// repetitions on each side; otherwise one mode. Values below <paramref name="floor"/> (the metric's
    /// resolution) are raised to it first, so that noise under the resolution never makes a mode.
    /// </summary>
    /// <remarks>
    /// A gap rule rather than a density estimate: a cell has 5 to 10 repetitions, too few for a histogram, while the
    /// modes seen are far apart (about 3×) and each tight. One unimodal cell with ±20% noise does not reach 1.5×
    /// between neighbours; a run that does is reported with both modes, so a reader can judge.
    /// </remarks>
    public static ModeSplit Of(IReadOnlyList<double> samples, double floor = 1e-9)
    {
        ArgumentNullException.ThrowIfNull(samples);
        double[] sorted = [.. samples.Select(v => Math.Max(v, floor)).Order()];
        int bestCut = -1;
        double bestGap = MinimumGap;
        for (int cut = MinimumCount; cut <= sorted.Length - MinimumCount; cut++)
        {
            double gap = sorted[cut] / sorted[cut - 1];
            if (gap >= bestGap)
            {
                bestGap = gap;
                bestCut = cut;
            }
        }

        if (bestCut < 0)
        {
            return new ModeSplit([.. samples], []);
        }

        // The split keeps each repetition's own value (not the floored one) and its place in the run's order.
        double threshold = Math.Sqrt(sorted[bestCut - 1] * sorted[bestCut]);
        return new ModeSplit(
            [.. samples.Where(v => Math.Max(v, floor) < threshold)],
            [.. samples.Where(v => Math.Max(v, floor) >= threshold)]);
    }
}
