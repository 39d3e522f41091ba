using SlimPool.Bench.Reporting;

namespace SlimPool.Bench.Tests;

public sealed class RatioEstimatorTests
{
    // Ten repetitions a side, spread like real timings on a shared 2-core machine (a few slow outliers).
    private static readonly double[] s_reference = [100, 103, 98, 101, 140, 99, 102, 97, 100, 130];

    [Fact]
    public void Compare_ClearlyFaster_IsAWinWithTheIntervalBelowOne()
    {
        double[] candidate = [.. s_reference.Select(v => v * 0.6)];

        Comparison c = RatioEstimator.Compare(candidate, s_reference);

        Assert.Equal(Verdict.Win, c.Verdict);
        Assert.InRange(c.Ratio, 0.55, 0.65);
        Assert.True(c.Low <= c.Ratio && c.Ratio <= c.High);
        Assert.True(c.High < 1.0);
    }

    [Fact]
    public void Compare_ClearlySlower_IsALossWithTheIntervalAboveOne()
    {
        double[] candidate = [.. s_reference.Select(v => v * 1.5)];

        Comparison c = RatioEstimator.Compare(candidate, s_reference);

        Assert.Equal(Verdict.Loss, c.Verdict);
        Assert.InRange(c.Ratio, 1.4, 1.6);
        Assert.True(c.Low > 1.0);
    }

    [Fact]
    public void Compare_SameDistributionShuffled_IsATieWithTheIntervalAcrossOne()
    {
        double[] candidate = [101, 97, 130, 100, 99, 140, 103, 98, 102, 100];

        Comparison c = RatioEstimator.Compare(candidate, s_reference);

        Assert.Equal(Verdict.Tie, c.Verdict);
        Assert.InRange(c.Ratio, 0.97, 1.03);
        Assert.True(c.Low < 1.0 && c.High > 1.0);
    }

    [Fact]
    public void Compare_SmallShiftInsideTheNoise_IsATieNotAWin()
    {
        // 3% faster on average, with the reference's own spread: a difference ten repetitions cannot show.
        double[] candidate = [.. s_reference.Reverse().Select(v => v * 0.97)];

        Comparison c = RatioEstimator.Compare(candidate, s_reference);

        Assert.Equal(Verdict.Tie, c.Verdict);
    }

    [Fact]
    public void Compare_TenASide_UsesTheExactMosesRanksAtNinetyFivePercent()
    {
        // Candidate i = 2^(i/10) against a reference of ones: the pairwise log-ratios are the candidate's own
        // logs, each ten times; the Moses interval for n = m = 10 is [D(24), D(77)], i.e. the 3rd and 8th values.
        double[] candidate = [.. Enumerable.Range(0, 10).Select(i => Math.Pow(2, i / 10.0))];
        double[] reference = [.. Enumerable.Repeat(1.0, 10)];

        Comparison c = RatioEstimator.Compare(candidate, reference);

        Assert.Equal(Math.Pow(2, 0.2), c.Low, 9);
        Assert.Equal(Math.Pow(2, 0.7), c.High, 9);
        Assert.InRange(c.Confidence, 0.95, 0.96);
    }

    [Fact]
    public void Compare_TooFewRepetitions_GivesTheWidestIntervalAndItsLowerConfidence()
    {
        Comparison c = RatioEstimator.Compare([50, 60, 70], [100, 110, 120]);

        Assert.Equal(50.0 / 120, c.Low, 9);
        Assert.Equal(70.0 / 100, c.High, 9);
        Assert.Equal(0.9, c.Confidence, 9); // 1 − 2 · P(U ≤ 0) = 1 − 2/20
        Assert.Equal(Verdict.Win, c.Verdict);
    }

    [Fact]
    public void Compare_ZerosUnderTheFloor_CompareAsTheFloor()
    {
        Comparison c = RatioEstimator.Compare([0, 0, 0, 0], [0.01, 0.02, 0.01, 0.03], floor: 0.05);

        Assert.Equal(1.0, c.Ratio, 9);
        Assert.Equal(Verdict.Tie, c.Verdict);
    }

    [Fact]
    public void Compare_EmptySide_ThrowsArgumentExceptionNamingIt()
    {
        var exception = Assert.Throws<ArgumentException>(() => RatioEstimator.Compare([1.0], []));

        Assert.Equal("reference", exception.ParamName);
    }
}
