using System.Diagnostics;
using SlimPool.Bench.Pools;
using SlimPool.Bench.Reporting;
using SlimPool.Bench.Scenarios;
using SlimPool.Bench.Work;

namespace SlimPool.Bench.Running;

/// <summary>
/// Runs every cell (scenario × case × core count): for each repetition, every pool once, the order of the pools
/// reversed from one repetition to the next so that neither side always goes first; each repetition through the
/// <see cref="IRepetitionRunner"/> (a fresh child process by default). A cell runs its least repetitions, then one
/// more at a time until every ratio's interval is narrow enough (<see cref="AdaptiveStop"/>) or the most are done.
/// Prints each table as its cell completes, under a progress bar with the time left.
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

        var cells = new List<Cell>();
        foreach (IScenario scenario in scenarios)
        {
            foreach (BenchCase benchCase in CasesToRun(scenario, context))
            {
                foreach (int? cpus in settings.Cpus?.Select(c => (int?)c) ?? [null])
                {
                    if (cpus > Environment.ProcessorCount)
                    {
                        console.Skipped($"{scenario.Name} {benchCase.Key}: --cpus {cpus} is more than this machine's {Environment.ProcessorCount} cores");
                        continue;
                    }

                    cells.Add(new Cell(scenario, benchCase, cpus, PoolsOf(scenario, benchCase)));
                }
            }
        }

        List<CaseResult> results = console.WithProgress<List<CaseResult>>(
            [.. cells.Select(c => c.Pools.Count)],
            settings.MaxRepeat,
            progress => [.. cells.Select(cell =>
            {
                CaseResult result = RunCell(cell, context, progress);
                console.Table(result);
                return result;
            })]);

        return new BenchReport(settings, nsPerIteration, results, total.Elapsed);
    }

    // --quick is a smoke run of every scenario: its first case only. The default run leaves out the extended cases
    // (about five minutes in all); --all-cases and --full run every case. Sizes or workers the user listed ask for
    // those cases whatever the mode.
    private IEnumerable<BenchCase> CasesToRun(IScenario scenario, CaseContext context) =>
        CaseSelection.Select(scenario.Cases(context), settings);

    private List<PoolDefinition> PoolsOf(IScenario scenario, BenchCase benchCase)
    {
        List<PoolDefinition> cellPools = [.. pools.Where(p => p.Supports(scenario))];
        if (settings.Mode == BenchMode.Quick && !settings.ListsCases)
        {
            return cellPools; // a smoke run: the reference and the pools asked for, not a case's extra rows (unless cases were listed)
        }

        foreach (string extra in benchCase.ExtraPools)
        {
            if (PoolCatalog.Find(extra) is { } pool && pool.Supports(scenario) && !cellPools.Contains(pool))
            {
                cellPools.Add(pool);
            }
        }

        return cellPools;
    }

    private CaseResult RunCell(Cell cell, CaseContext context, RunProgress progress)
    {
        var samples = cell.Pools.ToDictionary(p => p, _ => new List<Measurement>());
        string name = $"{cell.Scenario.Name} {cell.Case.Key}" + (cell.Cpus is int n ? $" on {n} cores" : "");
        CaseResult? result = null;
        int repetition = 0;
        long start = Stopwatch.GetTimestamp();
        while (repetition < settings.MaxRepeat)
        {
            IEnumerable<PoolDefinition> order = repetition % 2 == 0 ? cell.Pools : Enumerable.Reverse(cell.Pools);
            repetition++;
            foreach (PoolDefinition pool in order)
            {
                progress.Running(name, repetition, pool.Name);
                samples[pool].Add(runner.Run(new ChildRequest(cell.Scenario.Name, cell.Case.Key, pool.Name, context), cell.Cpus));
                progress.RunDone();
            }

            result = CellResults.Build(cell.Scenario.Name, cell.Case, cell.Cpus, [.. cell.Pools.Select(p => (p, (IReadOnlyList<Measurement>)samples[p]))]);
            if (repetition >= settings.MinRepeat && AdaptiveStop.IsPreciseEnough(result, settings.TargetHalfWidth))
            {
                break;
            }
        }

        progress.CellDone(repetition);
        return result! with { Elapsed = Stopwatch.GetElapsedTime(start) };
    }

    private sealed record Cell(IScenario Scenario, BenchCase Case, int? Cpus, IReadOnlyList<PoolDefinition> Pools);
}
