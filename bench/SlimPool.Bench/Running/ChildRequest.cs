using SlimPool.Bench.Scenarios;

namespace SlimPool.Bench.Running;

/// <summary>One measured repetition: which case of which scenario on which pool, and the context that defines the case.</summary>
internal sealed record ChildRequest(string Scenario, string Case, string Pool, CaseContext Context);
