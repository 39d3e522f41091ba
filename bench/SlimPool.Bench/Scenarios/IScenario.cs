using SlimPool.Bench.Reporting;

namespace SlimPool.Bench.Scenarios;

/// <summary>One experiment of the comparison program; each yields its tables as they complete.</summary>
internal interface IScenario
{
    /// <summary>The name accepted by <c>--scenario</c>.</summary>
    string Name { get; }

    /// <summary>One line: what it measures and which seed it comes from.</summary>
    string Description { get; }

    IEnumerable<CaseResult> Run(ScenarioContext context);
}
