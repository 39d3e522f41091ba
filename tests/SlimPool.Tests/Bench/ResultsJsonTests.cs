using System.Text.Json;
using SlimPool.Bench;
using SlimPool.Bench.Pools;
using SlimPool.Bench.Reporting;
using SlimPool.Bench.Scenarios;
using SlimPool.Tests.Infrastructure;

namespace SlimPool.Tests.Bench;

public sealed class ResultsJsonTests
{
    private static JsonElement Schema() =>
        JsonDocument.Parse(File.ReadAllText(Path.Combine(AppContext.BaseDirectory, "results.schema.json"))).RootElement;

    private static JsonElement Written(IReadOnlyList<CaseResult> results)
    {
        using var stream = new MemoryStream();
        ResultsJson.Write(stream, new BenchSettings { Quick = true, Repeat = 1 }, results);
        return JsonDocument.Parse(stream.ToArray()).RootElement;
    }

    [Fact]
    public void Write_RealTinyWorkRun_ValidatesAgainstTheSchema()
    {
        var settings = new BenchSettings { Quick = true, Repeat = 2, Ticks = [0, 10] };
        IReadOnlyList<PoolDefinition> pools = PoolCatalog.Select([PoolCatalog.BaselineName, "SlimPool"]);
        var context = new ScenarioContext(settings, pools, _ => { });
        List<CaseResult> results = [.. new TinyWorkScenario().Run(context), new CaseResult("async-chain", "not measured", [], "a note-only case")];

        JsonElement json = Written(results);

        Assert.Empty(MiniJsonSchema.Validate(Schema(), json));
        JsonElement[] records = [.. json.GetProperty("results").EnumerateArray()];
        Assert.Equal(5, records.Length); // 2 work sizes × 2 pools, plus a note-only case
        JsonElement slim = records.First(r => r.GetProperty("pool").GetString() == "SlimPool");
        Assert.Equal(2, slim.GetProperty("metrics")[0].GetProperty("samples").GetArrayLength());
        Assert.True(slim.GetProperty("ratioToThreadPool").GetDouble() > 0);
    }

    [Fact]
    public void Validate_RecordWithoutMetrics_ReportsTheViolation()
    {
        JsonElement broken = JsonDocument.Parse("""
            { "schemaVersion": 1, "createdUtc": "x", "machine": { "runtime": "r", "os": "o", "cpu": "c", "cores": 2 },
              "settings": { "mode": "quick", "repeat": 1 },
              "results": [ { "scenario": "s", "case": "c", "pool": "p", "ratioToThreadPool": "fast" } ] }
            """).RootElement;

        List<string> errors = MiniJsonSchema.Validate(Schema(), broken);

        Assert.Contains(errors, e => e.Contains("'metrics'", StringComparison.Ordinal));
        Assert.Contains(errors, e => e.Contains("ratioToThreadPool", StringComparison.Ordinal));
    }
}
