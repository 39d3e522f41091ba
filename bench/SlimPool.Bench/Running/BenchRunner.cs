using System.Diagnostics;
using SlimPool.Bench.Pools;
using SlimPool.Bench.Reporting;
using SlimPool.Bench.Scenarios;
using SlimPool.Bench.Work;

namespace SlimPool.Bench.Running;

/// <summary>
/// Runs every cell (scenario × case × core count): for each repetition, every pool once, the order of the pools
/// reversed from one repetition to the next so that neither side always goes first; each repetition through the
/// <see cref="IRepetitionRunner"/> (a fresh child process by default). Prints each table as its cell completes.
/// </summary>
internal sealed class BenchRunner(BenchSettings settings, IReadOnlyList<PoolDefinition> pools, IRepetitionRunner runner, ResultConsole console)
{
    /// <summary>Calibrates the work loop, runs the cells, and returns the report.</summary>
    public BenchReport Run(IReadOnlyList<IScenario> scenarios)
    {
        var total = Stopwatch.StartNew();
        double nsPerIteration = CpuWork.CalibrateNanosecondsPerIteration();
        var context = new CaseContext(settings.Mode, nsPerIteration, Environment.ProcessorCount, settings.WorkSizes, settings.Workers);
        console.Calibration(nsPerIteration);

        var cells = new List<(IScenario Scenario, BenchCase Case, int? Cpus)>();
        foreach (IScenario scenario in scenarios)
        {
            foreach (BenchCase benchCase in scenario.Cases(context))
            {
                foreach (int? cpus in settings.Cpus?.Select(c => (int?)c) ?? [null])
                {
                    cells.Add((scenario, benchCase, cpus));
                }
            }
        }

        var results = new List<CaseResult>();
        for (int i = 0; i < cells.Count; i++)
        {
            (IScenario scenario, BenchCase benchCase, int? cpus) = cells[i];
            if (cpus > Environment.ProcessorCount)
            {
                console.Skipped($"{scenario.Name} {benchCase.Key}: --cpus {cpus} is more than this machine's {Environment.ProcessorCount} cores");
                continue;
            }

            CaseResult result = RunCell(scenario, benchCase, cpus, context, $"[{i + 1}/{cells.Count}, {total.Elapsed:m\\:ss}]");
            console.Table(result);
            results.Add(result);
        }

        console.ClearProgress();
        return new BenchReport(settings, nsPerIteration, results, total.Elapsed);
    }

    private CaseResult RunCell(IScenario scenario, BenchCase benchCase, int? cpus, CaseContext context, string position)
    {
        List<PoolDefinition> cellPools = [.. pools.Where(p => p.Supports(scenario))];
        foreach (string extra in benchCase.ExtraPools)
        {
            if (PoolCatalog.Find(extra) is { } pool && pool.Supports(scenario) && !cellPools.Contains(pool))
            {
                cellPools.Add(pool);
            }
        }

        var samples = cellPools.ToDictionary(p => p, _ => new List<Measurement>());
        string where = cpus is int n ? $" on {n} cores" : "";
        for (int repetition = 0; repetition < settings.Repeat; repetition++)
        {
            IEnumerable<PoolDefinition> order = repetition % 2 == 0 ? cellPools : Enumerable.Reverse(cellPools);
            foreach (PoolDefinition pool in order)
            {
                console.Progress($"{position} {scenario.Name} {benchCase.Key}{where}: repetition {repetition + 1}/{settings.Repeat}, {pool.Name}");
                samples[pool].Add(runner.Run(new ChildRequest(scenario.Name, benchCase.Key, pool.Name, context), cpus));
            }
        }

        return CellResults.Build(scenario.Name, benchCase, cpus, [.. cellPools.Select(p => (p, (IReadOnlyList<Measurement>)samples[p]))]);
    }
}
