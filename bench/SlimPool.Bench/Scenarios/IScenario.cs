using SlimPool.Bench.Pools;
using SlimPool.Bench.Running;

namespace SlimPool.Bench.Scenarios;

/// <summary>
/// One experiment of the comparison program: a list of cases, and how to measure one case on one pool. A measured
/// repetition is one call of <see cref="Measure{TPool}"/>, in a fresh child process by default.
/// </summary>
internal interface IScenario
{
    /// <summary>The name accepted by <c>--scenario</c>.</summary>
    string Name { get; }

    /// <summary>One line: what it measures and which seed it comes from.</summary>
    string Description { get; }

    /// <summary>The cases for a run; the same context yields the same cases (a child process finds its case by key).</summary>
    IReadOnlyList<BenchCase> Cases(CaseContext context);

    /// <summary>
    /// Runs <paramref name="benchCase"/> once to warm up and once measured on <paramref name="pool"/>. Generic over
    /// the driver so that each pool's calls compile to direct calls of that pool's own API.
    /// </summary>
    Measurement Measure<TPool>(BenchCase benchCase, TPool pool)
        where TPool : struct, IBenchPool;
}
