using SlimPool.Bench.Scenarios;

namespace SlimPool.Bench.Running;

/// <summary>Which of a scenario's cases a run measures.</summary>
internal static class CaseSelection
{
    /// <summary>
    /// <c>--quick</c>: the first case only, or every case when the user listed tiny-work's sizes (<c>--work</c>) or
    /// thread-count's workers (<c>--workers</c>). The default run: the cases that are not <see cref="BenchCase.Extended"/>
    /// (a scenario never marks a case the user listed as extended). <c>--all-cases</c> and <c>--full</c>: every case.
    /// </summary>
    public static IReadOnlyList<BenchCase> Select(IReadOnlyList<BenchCase> cases, BenchSettings settings)
    {
        ArgumentNullException.ThrowIfNull(cases);
        ArgumentNullException.ThrowIfNull(settings);
        if (settings.AllCases)
        {
            return cases;
        }

        if (settings.Mode == BenchMode.Quick)
        {
            return settings.ListsCases ? cases : [.. cases.Take(1)];
        }

        return [.. cases.Where(c => !c.Extended)];
    }
}
