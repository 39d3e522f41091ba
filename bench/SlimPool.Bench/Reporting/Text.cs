using System.Globalization;

namespace SlimPool.Bench.Reporting;

/// <summary>How ratios and verdicts read, the same in the console, the Markdown summary and the charts.</summary>
internal static class Text
{
    public static string Ratio(Comparison c) =>
        string.Create(CultureInfo.InvariantCulture, $"{c.Ratio:0.00}x [{c.Low:0.00}–{c.High:0.00}]");

    public static string Verdict(Verdict verdict) => verdict.ToString().ToLowerInvariant();
}
