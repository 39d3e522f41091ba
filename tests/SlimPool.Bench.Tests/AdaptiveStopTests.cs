using SlimPool.Bench.Pools;
using SlimPool.Bench.Reporting;
using SlimPool.Bench.Running;
using SlimPool.Bench.Scenarios;

namespace SlimPool.Bench.Tests;

public sealed class AdaptiveStopTests
{
    [Fact]
    public void IsPreciseEnough_TightRepetitions_StopsTheCell()
    {
        CaseResult cell = Cell([100, 101, 99, 100, 102], [60, 60.5, 59.6, 60.2, 60.1]);

        Assert.True(AdaptiveStop.IsPreciseEnough(cell, 0.05));
    }

    [Fact]
    public void IsPreciseEnough_SpreadRepetitions_GoesOn()
    {
        CaseResult cell = Cell([100, 130, 90, 100, 140], [60, 80, 55, 61, 90]);

        Assert.False(AdaptiveStop.IsPreciseEnough(cell, 0.05));
        Assert.True(AdaptiveStop.IsPreciseEnough(cell, 1.0));
    }

    [Fact]
    public void IsPreciseEnough_TooFewRepetitionsForTheConfidence_GoesOn()
    {
        // Three a side cannot give a 95% interval (the estimator returns its widest, at a lower confidence).
        CaseResult cell = Cell([100, 100, 100], [60, 60, 60]);

        Assert.False(AdaptiveStop.IsPreciseEnough(cell, 0.05));
    }

    private static CaseResult Cell(double[] reference, double[] slim)
    {
        static Measurement M(double ms) => new([new("total", "ms", ms)]);
        return CellResults.Build(
            "tiny-work",
            new BenchCase("1us", "1 µs"),
            cpus: null,
            [(PoolCatalog.Reference, reference.Select(M).ToArray()), (PoolCatalog.Find("SlimPool")!, slim.Select(M).ToArray())]);
    }
}
