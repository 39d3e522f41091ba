using SlimPool.Bench.Reporting;

namespace SlimPool.Bench.Scenarios;

/// <summary>
/// 10,000 async flows × 100 awaits each, the procedural, event-driven style the seed pool was built for.
/// Needs SlimPool's SynchronizationContext and <c>Run</c> (the issue "Async and blocking"); until then it
/// reports that instead of a number.
/// </summary>
internal sealed class AsyncChainScenario : IScenario
{
    public string Name => "async-chain";

    public string Description => "10,000 async flows × 100 awaits; needs the issue \"Async and blocking\" (not measured yet)";

    public IEnumerable<CaseResult> Run(ScenarioContext context)
    {
        context.Report("async-chain: skipped");
        yield return new CaseResult(Name, "10,000 flows × 100 awaits", [],
            "Not measured yet: needs SlimThreadPool.Run and the pool's SynchronizationContext (issue \"Async and blocking\").");
    }
}
