using System.Globalization;
using System.Text;

namespace SlimPool.Bench.Reporting;

/// <summary>
/// The run in one Markdown table, a row per cell and non-reference pool: both medians (the reference's fast mode's
/// when it has two), the ratio with its interval
/// and the verdict. The comparison program writes it to <c>bench-results/summary.md</c>; the README's table is
/// that file, unedited. A tie is written as a tie, never bold.
/// </summary>
internal static class SummaryTable
{
    public static string Text(IReadOnlyList<CaseResult> results)
    {
        var text = new StringBuilder();
        text.AppendLine("| scenario | case | metric | ThreadPool | pool | pool's value | ratio [95% CI] | verdict |");
        text.AppendLine("| --- | --- | --- | ---: | --- | ---: | ---: | --- |");
        foreach (CaseResult result in results)
        {
            PoolResult? reference = result.Pools.FirstOrDefault(p => p.IsReference);
            foreach (PoolResult row in result.Pools.Where(p => p.Comparison is not null))
            {
                Metric metric = row.Metrics[0];
                string cores = result.Cpus is int n ? $", {n} cores" : "";
                text.Append(CultureInfo.InvariantCulture,
                    $"| {result.Scenario} | {result.Key}{cores} | {metric.Name} ({metric.Unit}) | {ReferenceMedian(reference)} | {row.Pool} | {Median(metric)} | {Reporting.Text.Ratio(row.Comparison!.Value)} | {Reporting.Text.Verdict(row.Comparison.Value.Verdict)} |");
                text.AppendLine();
            }
        }

        return text.ToString();
    }

    // The value the ratio is taken against: the reference's fast mode, with the slow one beside it when it has two.
    private static string ReferenceMedian(PoolResult? reference)
    {
        if (reference?.Modes is not { IsBimodal: true } modes)
        {
            return Median(reference?.Metrics[0]);
        }

        string format = reference.Metrics[0].Format;
        string fast = Stats.Of(modes.Fast).Median.ToString(format, CultureInfo.InvariantCulture);
        string slow = Stats.Of(modes.Slow).Median.ToString(format, CultureInfo.InvariantCulture);
        return $"{fast} (fast mode, {modes.Fast.Count} of {modes.Fast.Count + modes.Slow.Count}; slow {slow})";
    }

    private static string Median(Metric? metric) =>
        metric is null ? "" : metric.Stats.Median.ToString(metric.Format, CultureInfo.InvariantCulture);
}
