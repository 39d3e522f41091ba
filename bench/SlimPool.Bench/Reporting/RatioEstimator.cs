using Perfolizer;
using Perfolizer.Mathematics.GenericEstimators;
using Perfolizer.Mathematics.SignificanceTesting.MannWhitney;

namespace SlimPool.Bench.Reporting;

/// <summary>
/// The ratio of a candidate's repetitions to the reference's, with a distribution-free confidence interval:
/// Perfolizer's Hodges–Lehmann estimate (the median of all pairwise ratios) and, around it, the Moses interval
/// on the pairwise log-ratios, whose order statistics come from Perfolizer's exact Mann–Whitney distribution.
/// Nothing is assumed about the shape of the timings (they are skewed and often bimodal on shared machines); the
/// only assumption is that a pool's repetitions are exchangeable, which isolated, alternating child processes give.
/// </summary>
internal static class RatioEstimator
{
    public const double DefaultConfidence = 0.95;

    /// <param name="candidate">The candidate's repetitions (positive).</param>
    /// <param name="reference">The reference's repetitions (positive).</param>
    /// <param name="floor">Values below it are raised to it (a measure's resolution, so that zeros can be compared).</param>
    /// <param name="confidence">The confidence level asked for.</param>
    public static Comparison Compare(IReadOnlyList<double> candidate, IReadOnlyList<double> reference, double floor = 1e-9, double confidence = DefaultConfidence)
    {
        ArgumentNullException.ThrowIfNull(candidate);
        ArgumentNullException.ThrowIfNull(reference);
        if (candidate.Count == 0 || reference.Count == 0)
        {
            throw new ArgumentException("both sides need at least one repetition", candidate.Count == 0 ? nameof(candidate) : nameof(reference));
        }

        double[] x = [.. candidate.Select(v => Math.Max(v, floor))];
        double[] y = [.. reference.Select(v => Math.Max(v, floor))];
        double ratio = HodgesLehmannEstimator.Instance.Ratio(new Sample(x), new Sample(y));

        int n = x.Length, m = y.Length;
        var logRatios = new double[n * m];
        for (int i = 0; i < n; i++)
        {
            for (int j = 0; j < m; j++)
            {
                logRatios[(i * m) + j] = Math.Log(x[i]) - Math.Log(y[j]);
            }
        }

        Array.Sort(logRatios);

        // Moses: the interval [D(c), D(nm + 1 − c)] (1-based) covers the true shift with probability
        // 1 − 2·P(U ≤ c − 1). c is the largest rank with P(U ≤ c − 1) ≤ α/2. Perfolizer's Cdf(n, m, u) is P(U < u).
        double halfAlpha = (1 - confidence) / 2;
        var cdf = MannWhitneyClassicExactCdf.Instance;
        int c = 0;
        while (c + 1 <= n * m / 2 && cdf.Cdf(n, m, c + 1) <= halfAlpha)
        {
            c++;
        }

        // Too few repetitions for the level asked: the widest interval there is, with the confidence it has.
        int rank = Math.Max(c, 1);
        double achieved = 1 - (2 * cdf.Cdf(n, m, rank));
        return new Comparison(ratio, Math.Exp(logRatios[rank - 1]), Math.Exp(logRatios[(n * m) - rank]), achieved);
    }
}
