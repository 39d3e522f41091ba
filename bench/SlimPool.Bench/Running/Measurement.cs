namespace SlimPool.Bench.Running;

/// <summary>
/// What one measured repetition of one case on one pool produced: named values, the first one primary (lower is
/// better; the ratio and the verdict are computed on it). Travels from a child process to the parent as JSON.
/// </summary>
internal sealed record Measurement(IReadOnlyList<MeasuredValue> Values)
{
    [System.Text.Json.Serialization.JsonIgnore]
    public MeasuredValue Primary => Values[0];

    /// <summary>
    /// Runs <paramref name="once"/> to warm up (JIT, tiering, the pool's threads), gives background compilation a
    /// moment, collects garbage, then runs it again and returns that second, measured, run.
    /// </summary>
    public static Measurement WarmUpThenMeasure(Func<Measurement> once)
    {
        once();
        Thread.Sleep(50);
        GC.Collect();
        GC.WaitForPendingFinalizers();
        GC.Collect();
        return once();
    }
}
