using System.Globalization;

namespace SlimPool.Bench.Reporting;

/// <summary>How ratios and verdicts read, the same in the console, the Markdown summary and the charts.</summary>
internal static class Text
{
    public static string Ratio(Comparison c) =>
        string.Create(CultureInfo.InvariantCulture, $"{c.Ratio:0.00}x [{c.Low:0.00}–{c.High:0.00}]");

    public static string Verdict(Verdict verdict) => verdict.ToString().ToLowerInvariant();

    /// <summary>
    /// The reference row's ratio cell: "reference", or with two modes which one the ratios use, e.g.
    /// "reference: fast mode 4 of 10 (median 26.1; slow 6, median 120.4)".
    /// </summary>
    public static string Reference(PoolResult row)
    {
        if (row.Modes is not { IsBimodal: true } modes)
        {
            return "reference";
        }

        string format = row.Metrics[0].Format;
        int all = modes.Fast.Count + modes.Slow.Count;
        string fast = Stats.Of(modes.Fast).Median.ToString(format, CultureInfo.InvariantCulture);
        string slow = Stats.Of(modes.Slow).Median.ToString(format, CultureInfo.InvariantCulture);
        return $"reference: fast mode {modes.Fast.Count} of {all} (median {fast}; slow {modes.Slow.Count}, median {slow})";
    }
}
