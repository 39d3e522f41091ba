namespace SlimPool.Bench.Reporting;

/// <summary>One pool's row in a case: its metrics, the first of which is the one compared with ThreadPool.</summary>
internal sealed record PoolResult(string Pool, IReadOnlyList<Metric> Metrics);
