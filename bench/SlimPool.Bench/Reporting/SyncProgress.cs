namespace SlimPool.Bench.Reporting;

/// <summary>An <see cref="IProgress{T}"/> that reports on the calling thread (no pool involved in the display).</summary>
internal sealed class SyncProgress(Action<string> report) : IProgress<string>
{
    public void Report(string value) => report(value);
}
