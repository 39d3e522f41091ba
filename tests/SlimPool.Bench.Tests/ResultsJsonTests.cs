using System.Text.Json;
using SlimPool.Bench.Pools;
using SlimPool.Bench.Reporting;
using SlimPool.Bench.Running;
using SlimPool.Bench.Scenarios;

namespace SlimPool.Bench.Tests;

public sealed class ResultsJsonTests
{
    internal static CaseResult SyntheticCell(double slimFactor)
    {
        double[] reference = [100, 103, 98, 101, 140, 99, 102, 97, 100, 130];
        static Measurement M(double ms) => new([new("wall", "ms", ms), new("per item", "ns", ms * 10)]);
        return CellResults.Build(
            "tiny-work",
            new BenchCase("cap-1us", "1 µs of work per item") { Variant = "capped", Parameter = 1 },
            cpus: null,
            [
                (PoolCatalog.Reference, reference.Select(M).ToArray()),
                (PoolCatalog.Find("SlimPool")!, reference.Select(v => M(v * slimFactor)).ToArray()),
            ]);
    }

    private static string Written(params CaseResult[] results)
    {
        using var stream = new MemoryStream();
        var report = new BenchReport(new BenchSettings(), 1.1, results, TimeSpan.FromSeconds(3));
        ResultsJson.Write(stream, report);
        return System.Text.Encoding.UTF8.GetString(stream.ToArray());
    }

    [Fact]
    public void Write_CellOfTwoPools_ValidatesAndCarriesRepetitionsRatioIntervalAndVerdict()
    {
        string text = Written(SyntheticCell(0.6));
        JsonElement json = JsonDocument.Parse(text).RootElement;

        Assert.Empty(ResultsSchema.Validate(text));
        Assert.Equal("workstation", json.GetProperty("machine").GetProperty("gcMode").GetString());
        Assert.Equal(Environment.ProcessorCount, json.GetProperty("machine").GetProperty("cores").GetInt32());
        JsonElement[] records = [.. json.GetProperty("results").EnumerateArray()];
        Assert.Equal(2, records.Length);
        JsonElement reference = records.Single(r => r.GetProperty("reference").GetBoolean());
        Assert.Equal("ThreadPool", reference.GetProperty("pool").GetString());
        Assert.Equal(JsonValueKind.Null, reference.GetProperty("verdict").ValueKind);
        JsonElement slim = records.Single(r => r.GetProperty("pool").GetString() == "SlimPool");
        Assert.Equal(10, slim.GetProperty("repetitions").GetArrayLength());
        Assert.Equal("win", slim.GetProperty("verdict").GetString());
        Assert.InRange(slim.GetProperty("ratio").GetDouble(), 0.55, 0.65);
        Assert.True(slim.GetProperty("ratioHigh").GetDouble() < 1.0);
    }

    [Fact]
    public void Validate_RecordWithoutVerdictOrMetrics_ReportsTheViolations()
    {
        string text = Written(SyntheticCell(1.5));
        Assert.Contains("\"verdict\": \"loss\"", text, StringComparison.Ordinal);
        string broken = text.Replace("\"verdict\": \"loss\"", "\"verdict\": \"faster\"", StringComparison.Ordinal)
            .Replace("\"metrics\":", "\"metricz\":", StringComparison.Ordinal);

        var errors = ResultsSchema.Validate(broken);

        Assert.Contains("PropertyRequired: #/results[1].metrics", errors);
        Assert.Contains("NotInEnumeration: #/results[1].verdict", errors);
    }

    [Fact]
    public void SummaryTable_WritesEveryVerdictAsIsAndNeverBold()
    {
        string markdown = SummaryTable.Text([SyntheticCell(0.6), SyntheticCell(1.0), SyntheticCell(1.5)]);

        Assert.Contains("| win |", markdown, StringComparison.Ordinal);
        Assert.Contains("| tie |", markdown, StringComparison.Ordinal);
        Assert.Contains("| loss |", markdown, StringComparison.Ordinal);
        Assert.DoesNotContain("**", markdown, StringComparison.Ordinal);
    }

    [Fact]
    public void Charts_SyntheticRun_WritesPngAndSvg()
    {
        string directory = Path.Combine(Path.GetTempPath(), "slimpool-charts-" + Guid.NewGuid().ToString("N"));
        try
        {
            CaseResult tenMicroseconds = SyntheticCell(0.9) with { Key = "cap-10us", Parameter = 10 };
            IReadOnlyList<string> files = [.. Charts.ForestChart.Write([SyntheticCell(0.6), SyntheticCell(1.5)], directory), .. Charts.TinyWorkChart.Write([SyntheticCell(0.6), tenMicroseconds], directory)];

            Assert.Equal(4, files.Count);
            foreach (string png in files.Where(f => f.EndsWith(".png", StringComparison.Ordinal)))
            {
                Assert.Equal([0x89, (byte)'P', (byte)'N', (byte)'G'], File.ReadAllBytes(png).Take(4));
            }

            foreach (string svg in files.Where(f => f.EndsWith(".svg", StringComparison.Ordinal)))
            {
                Assert.Contains("<svg", File.ReadAllText(svg), StringComparison.Ordinal);
            }
        }
        finally
        {
            if (Directory.Exists(directory))
            {
                Directory.Delete(directory, recursive: true);
            }
        }
    }
}
