using System.Text.Json;
using SlimPool.Bench.Pools;
using SlimPool.Bench.Reporting;
using SlimPool.Bench.Running;
using SlimPool.Bench.Scenarios;

namespace SlimPool.Bench.Tests;

/// <summary>The reference's two modes: found on synthetic runs, the ratio taken against the fast one, both written out.</summary>
public sealed class ReferenceModesTests
{
    // The built-in pool on one million empty items from one outside thread, as seen in one process: 24–29 ms in its
    // fast mode, 76–174 ms in its slow one, interleaved.
    private static readonly double[] s_bimodal = [26, 120, 25, 140, 28, 76, 174, 24, 29, 110];

    private static readonly double[] s_unimodal = [100, 103, 98, 101, 140, 99, 102, 97, 100, 130];

    [Fact]
    public void Of_TwoClustersFarApart_SplitsThemKeepingTheRunsOrder()
    {
        ModeSplit split = ModeSplit.Of(s_bimodal);

        Assert.True(split.IsBimodal);
        Assert.Equal([26, 25, 28, 24, 29], split.Fast);
        Assert.Equal([120, 140, 76, 174, 110], split.Slow);
    }

    [Fact]
    public void Of_NoisyButOneCluster_IsOneMode()
    {
        ModeSplit split = ModeSplit.Of(s_unimodal);

        Assert.False(split.IsBimodal);
        Assert.Equal(s_unimodal, split.Fast);
        Assert.Empty(split.Slow);
    }

    [Theory]
    [InlineData(new double[] { 100, 101, 99, 300, 102 })]
    [InlineData(new double[] { 30, 101, 99, 100, 102 })]
    public void Of_OneOutlierOnEitherSide_IsNotAMode(double[] samples)
    {
        Assert.False(ModeSplit.Of(samples).IsBimodal);
    }

    [Fact]
    public void Of_ValuesBelowTheFloor_DoNotMakeAMode()
    {
        // Latencies at the timer's resolution: 0.001 against 0.004 ms is noise under a 0.01 ms floor.
        double[] samples = [0.001, 0.004, 0.002, 0.004, 0.001, 0.003];

        Assert.True(ModeSplit.Of(samples).IsBimodal);
        Assert.False(ModeSplit.Of(samples, floor: 0.01).IsBimodal);
    }

    [Fact]
    public void Build_BimodalReference_ComparesWithTheFastModeOnly()
    {
        // SlimPool at a steady 40 ms: no loss against all of the reference's repetitions, a loss against its fast mode.
        CaseResult cell = Cell(s_bimodal, [.. s_bimodal.Select(_ => 40.0)]);

        PoolResult slim = cell.Pools.Single(p => p.Pool == "SlimPool");
        Assert.Equal(Verdict.Loss, slim.Comparison!.Value.Verdict);
        Assert.InRange(slim.Comparison.Value.Ratio, 1.35, 1.7);
        Assert.NotEqual(Verdict.Loss, RatioEstimator.Compare(slim.Metrics[0].Samples, s_bimodal).Verdict);
        PoolResult reference = cell.Pools.Single(p => p.IsReference);
        Assert.True(reference.Modes!.IsBimodal);
        Assert.Null(slim.Modes);
    }

    [Fact]
    public void Write_BimodalReference_CarriesBothModesAndTheThreadCountsAndValidates()
    {
        CaseResult cell = Cell(s_bimodal, [.. s_bimodal.Select(_ => 40.0)]);
        using var stream = new MemoryStream();
        ResultsJson.Write(stream, new BenchReport(new BenchSettings(), 1.1, [cell], TimeSpan.FromSeconds(3)));
        string text = System.Text.Encoding.UTF8.GetString(stream.ToArray());

        Assert.Empty(ResultsSchema.Validate(text));
        JsonElement[] records = [.. JsonDocument.Parse(text).RootElement.GetProperty("results").EnumerateArray()];
        JsonElement reference = records.Single(r => r.GetProperty("reference").GetBoolean());
        JsonElement modes = reference.GetProperty("modes");
        Assert.True(modes.GetProperty("bimodal").GetBoolean());
        Assert.Equal(5, modes.GetProperty("fast").GetProperty("count").GetInt32());
        Assert.Equal(26, modes.GetProperty("fast").GetProperty("median").GetDouble());
        Assert.Equal(120, modes.GetProperty("slow").GetProperty("median").GetDouble());
        JsonElement[] threads = [.. reference.GetProperty("builtInPool").EnumerateArray()];
        Assert.Equal(10, threads.Length);
        Assert.Equal(2, threads[0].GetProperty("threadsBefore").GetInt32());
        Assert.Equal(5, threads[1].GetProperty("threadsAfter").GetInt32());
        JsonElement slim = records.Single(r => r.GetProperty("pool").GetString() == "SlimPool");
        Assert.Equal(JsonValueKind.Null, slim.GetProperty("modes").ValueKind);
        Assert.Equal("loss", slim.GetProperty("verdict").GetString());

        string summary = SummaryTable.Text([cell]);
        Assert.Contains("| 26.0 (fast mode, 5 of 10; slow 120.0) |", summary, StringComparison.Ordinal);
    }

    [Fact]
    public void Validate_ModesWithoutTheirFastMode_ReportsTheViolation()
    {
        CaseResult cell = Cell(s_bimodal, [.. s_bimodal.Select(_ => 40.0)]);
        using var stream = new MemoryStream();
        ResultsJson.Write(stream, new BenchReport(new BenchSettings(), 1.1, [cell], TimeSpan.FromSeconds(3)));
        string text = System.Text.Encoding.UTF8.GetString(stream.ToArray()).Replace("\"fast\":", "\"quick\":", StringComparison.Ordinal);

        Assert.Contains("PropertyRequired: #/results[0].modes.fast", ResultsSchema.Validate(text));
    }

    private static CaseResult Cell(double[] reference, double[] slim)
    {
        // The reference's odd repetitions ran after the built-in pool had injected threads (5), the even ones on 2.
        Measurement M(double ms, int i) => new([new("total", "ms", ms)])
        {
            BuiltInPool = new BuiltInPoolState(2, i % 2 == 0 ? 2 : 5, 1_000 * i, (1_000 * i) + 1_000_000),
        };

        return CellResults.Build(
            "queue-drain",
            new BenchCase("interleaved", "1,000,000 empty items") { RatioFloor = 0.001 },
            cpus: null,
            [
                (PoolCatalog.Reference, reference.Select(M).ToArray()),
                (PoolCatalog.Find("SlimPool")!, slim.Select(M).ToArray()),
            ]);
    }
}
