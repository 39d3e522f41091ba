using SlimPool.Bench.Reporting;

namespace SlimPool.Bench.Running;

/// <summary>Everything a run produced: the settings, the work loop's calibration, every table, and how long it took.</summary>
internal sealed record BenchReport(BenchSettings Settings, double NanosecondsPerIteration, IReadOnlyList<CaseResult> Results, TimeSpan Elapsed);
