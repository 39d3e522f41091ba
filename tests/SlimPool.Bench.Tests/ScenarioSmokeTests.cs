using SlimPool.Bench.Pools;
using SlimPool.Bench.Running;
using SlimPool.Bench.Scenarios;

namespace SlimPool.Bench.Tests;

/// <summary>
/// Every scenario's first quick case, in this process, on the reference and on SlimPool: it finishes and reports a
/// positive primary value. Cases that cap the built-in pool are left to <see cref="ProcessIsolationTests"/>: a cap
/// here would cap the test host's pool while other tests run.
/// </summary>
public sealed class ScenarioSmokeTests
{
    public static TheoryData<string> Scenarios() => [.. ScenarioCatalog.All.Select(s => s.Name)];

    [Theory]
    [MemberData(nameof(Scenarios))]
    public void Measure_FirstQuickCase_ReportsAPositivePrimaryValueOnBothPools(string name)
    {
        IScenario scenario = ScenarioCatalog.Find(name)!;
        var context = new CaseContext(BenchMode.Quick, NanosecondsPerIteration: 1.0, Cores: Environment.ProcessorCount);
        BenchCase? benchCase = scenario.Cases(context).FirstOrDefault(c => c.Setup.MaxThreads is null);
        if (benchCase is null)
        {
            Assert.Contains(name, new[] { "thread-count", "io-latency" }); // every case caps the pools: run in child processes
            return;
        }

        foreach (PoolDefinition pool in PoolCatalog.Select(null))
        {
            Measurement measurement = pool.Measure(scenario, benchCase, benchCase.Setup);

            Assert.True(measurement.Primary.Value > 0, $"{name} {benchCase.Key} on {pool.Name}: {measurement.Primary}");
            Assert.All(measurement.Values, v => Assert.False(double.IsNaN(v.Value), $"{v.Name} is NaN"));
        }
    }
}
