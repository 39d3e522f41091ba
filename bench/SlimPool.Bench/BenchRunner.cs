using System.Diagnostics;
using SlimPool.Bench.Pools;
using SlimPool.Bench.Reporting;
using SlimPool.Bench.Scenarios;

namespace SlimPool.Bench;

/// <summary>Runs the chosen scenarios, prints each table as it completes, then writes the JSON and the chart.</summary>
internal static class BenchRunner
{
    public static int Run(BenchSettings settings, IReadOnlyList<PoolDefinition> pools, IReadOnlyList<IScenario> scenarios)
    {
        var console = new ResultConsole();
        console.Header(settings, pools, scenarios);

        var total = Stopwatch.StartNew();
        var results = new List<CaseResult>();
        var context = new ScenarioContext(settings, pools, console.Progress);
        foreach (IScenario scenario in scenarios)
        {
            foreach (CaseResult result in scenario.Run(context))
            {
                console.Table(result);
                results.Add(result);
            }
        }

        console.ClearProgress();
        if (settings.JsonPath is { Length: > 0 } jsonPath)
        {
            ResultsJson.Write(jsonPath, settings, results);
            Console.WriteLine($"results: {Path.GetFullPath(jsonPath)}");
        }

        if (settings.ChartPath is { Length: > 0 } chartPath && TinyWorkChart.TryWrite(chartPath, results))
        {
            Console.WriteLine($"chart:   {Path.GetFullPath(chartPath)}");
        }

        Console.WriteLine($"total time {total.Elapsed.TotalSeconds:0} s");
        return 0;
    }
}
