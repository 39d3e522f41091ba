namespace SlimPool.Bench.Reporting;

/// <summary>A pool's primary metric against the reference's: the ratio, its confidence interval, the verdict.</summary>
/// <param name="Ratio">Hodges–Lehmann estimate of candidate ÷ reference.</param>
/// <param name="Low">Lower end of the interval.</param>
/// <param name="High">Upper end of the interval.</param>
/// <param name="Confidence">The interval's actual confidence level (0.95 with at least 4 repetitions a side).</param>
internal readonly record struct Comparison(double Ratio, double Low, double High, double Confidence)
{
    public Verdict Verdict => High < 1.0 ? Verdict.Win : Low > 1.0 ? Verdict.Loss : Verdict.Tie;
}
