using System.Globalization;
using SlimPool.Bench.Charts;
using SlimPool.Bench.Pools;

namespace SlimPool.Bench.Reporting;

/// <summary>The tiny-work chart: each pool's wall time as a ratio to ThreadPool's, per work size, one line per pool.</summary>
internal static class TinyWorkChart
{
    /// <summary>Builds the chart from the capped tiny-work cases (or the uncapped ones if there are none); null without any.</summary>
    public static LineChart? Build(IReadOnlyList<CaseResult> results)
    {
        List<CaseResult> cases = [.. results.Where(r => r.Scenario == "tiny-work" && r.Parameter is not null && r.Variant == "capped")];
        string variant = "10,000 outstanding";
        if (cases.Count == 0)
        {
            cases = [.. results.Where(r => r.Scenario == "tiny-work" && r.Parameter is not null)];
            variant = "no cap";
        }

        cases = [.. cases.Where(c => c.BaselineMedian(PoolCatalog.BaselineName) is not null).OrderBy(c => c.Parameter)];
        if (cases.Count == 0)
        {
            return null;
        }

        string[] pools = [.. cases.SelectMany(c => c.Pools.Select(p => p.Pool)).Distinct()];
        var series = pools.Select((pool, i) => new ChartSeries(
            pool,
            LineChartRenderer.Palette[i % LineChartRenderer.Palette.Count],
            [.. cases.Select(c => c.Pools.FirstOrDefault(p => p.Pool == pool) is { } row ? c.Ratio(row, PoolCatalog.BaselineName) ?? double.NaN : double.NaN)]));

        return new LineChart(
            $"tiny-work ({variant}): wall time vs ThreadPool, lower is better",
            "work per item, ticks of 100 ns",
            "x ThreadPool",
            [.. cases.Select(c => c.Parameter!.Value.ToString(CultureInfo.InvariantCulture))],
            [.. series])
        {
            ReferenceY = 1.0,
        };
    }

    /// <summary>Writes the chart as PNG if the results hold tiny-work cases with a ThreadPool baseline.</summary>
    public static bool TryWrite(string path, IReadOnlyList<CaseResult> results)
    {
        if (Build(results) is not { } chart)
        {
            return false;
        }

        string? directory = Path.GetDirectoryName(Path.GetFullPath(path));
        if (directory is not null)
        {
            Directory.CreateDirectory(directory);
        }

        File.WriteAllBytes(path, LineChartRenderer.RenderPng(chart));
        return true;
    }
}
