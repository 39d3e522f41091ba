namespace SlimPool.Bench.Reporting;

/// <summary>Median, minimum and maximum of a cell's repetitions.</summary>
internal readonly record struct Stats(double Median, double Min, double Max)
{
    public static Stats Of(IReadOnlyList<double> samples)
    {
        if (samples.Count == 0)
        {
            throw new ArgumentException("no samples", nameof(samples));
        }

        double[] sorted = [.. samples.Order()];
        int middle = sorted.Length / 2;
        double median = sorted.Length % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
        return new Stats(median, sorted[0], sorted[^1]);
    }
}
