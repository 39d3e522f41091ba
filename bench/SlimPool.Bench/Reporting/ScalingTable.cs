using System.Globalization;
using System.Text;

namespace SlimPool.Bench.Reporting;

/// <summary>
/// How each pool's throughput grows with cores (<c>--cpus</c>): per case and pool, the primary metric's median on
/// the fewest cores divided by its median on N cores (2.0x: twice the throughput).
/// </summary>
internal static class ScalingTable
{
    public static IEnumerable<(string Case, string Pool, IReadOnlyList<(int Cpus, double Speedup)> Points)> Curves(IReadOnlyList<CaseResult> results)
    {
        foreach (IGrouping<(string, string), CaseResult> cell in results.Where(r => r.Cpus is not null).GroupBy(r => (r.Scenario, r.Key)))
        {
            CaseResult[] byCores = [.. cell.OrderBy(r => r.Cpus)];
            foreach (string pool in byCores[0].Pools.Select(p => p.Pool))
            {
                double? baseMedian = byCores[0].Pools.FirstOrDefault(p => p.Pool == pool)?.Metrics[0].Stats.Median;
                var points = new List<(int, double)>();
                foreach (CaseResult result in byCores)
                {
                    if (baseMedian is double b && result.Pools.FirstOrDefault(p => p.Pool == pool) is { } row)
                    {
                        points.Add((result.Cpus!.Value, b / row.Metrics[0].Stats.Median));
                    }
                }

                yield return ($"{cell.Key.Item1} {cell.Key.Item2}", pool, points);
            }
        }
    }

    public static string Text(IReadOnlyList<CaseResult> results)
    {
        var text = new StringBuilder();
        foreach ((string name, string pool, IReadOnlyList<(int Cpus, double Speedup)> points) in Curves(results))
        {
            text.Append(CultureInfo.InvariantCulture, $"  {name,-28} {pool,-26}");
            foreach ((int cpus, double speedup) in points)
            {
                text.Append(CultureInfo.InvariantCulture, $"  {cpus} cores: {speedup:0.00}x");
            }

            text.AppendLine();
        }

        return text.ToString();
    }
}
