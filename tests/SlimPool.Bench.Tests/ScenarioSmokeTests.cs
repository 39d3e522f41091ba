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

    [Theory]
    [InlineData(PoolCatalog.AkkaForkJoinName)]
    [InlineData(PoolCatalog.AkkaChannelName)]
    public void Measure_AkkaPingPongOnAkkasOwnExecutor_ReportsAPositivePrimaryValue(string poolName)
    {
        IScenario scenario = ScenarioCatalog.Find("akka-pingpong")!;
        var context = new CaseContext(BenchMode.Quick, NanosecondsPerIteration: 1.0, Cores: Environment.ProcessorCount);
        BenchCase benchCase = scenario.Cases(context)[0];
        PoolDefinition pool = PoolCatalog.Find(poolName)!;

        Measurement measurement = pool.Measure(scenario, benchCase, benchCase.Setup);

        Assert.True(measurement.Primary.Value > 0, $"akka-pingpong on {poolName}: {measurement.Primary}");
        Assert.Contains(poolName, benchCase.ExtraPools);
    }

    [Fact]
    public void Measure_ProtoPingPongOnProtosThreadPoolDispatcher_ReportsAPositivePrimaryValue()
    {
        IScenario scenario = ScenarioCatalog.Find("proto-pingpong")!;
        var context = new CaseContext(BenchMode.Quick, NanosecondsPerIteration: 1.0, Cores: Environment.ProcessorCount);
        BenchCase benchCase = scenario.Cases(context)[0];
        PoolDefinition pool = PoolCatalog.Find(PoolCatalog.ProtoThreadPoolName)!;

        Measurement measurement = pool.Measure(scenario, benchCase, benchCase.Setup);

        Assert.True(measurement.Primary.Value > 0, $"proto-pingpong on {pool.Name}: {measurement.Primary}");
        Assert.Contains(pool.Name, benchCase.ExtraPools);
    }

    [Fact]
    public void Supports_ProtoScenario_TheReferenceSlimPoolAndProtosDispatchersOnly()
    {
        IScenario proto = ScenarioCatalog.Find("proto-pingpong")!;
        IScenario drain = ScenarioCatalog.Find("queue-drain")!;

        Assert.All(PoolCatalog.All.Where(p => p.Name is PoolCatalog.ReferenceName or "SlimPool"), p => Assert.True(p.Supports(proto), p.Name));
        Assert.All(PoolCatalog.All.Where(p => p is PoolDefinition.ProtoDispatcher), p => Assert.True(p.Supports(proto) && !p.Supports(drain), p.Name));
        Assert.All(PoolCatalog.All.Where(p => p is PoolDefinition.Adapter or PoolDefinition.AkkaExecutor), p => Assert.False(p.Supports(proto), p.Name));
        Assert.Throws<NotSupportedException>(() => PoolCatalog.Find(PoolCatalog.ProtoThreadPoolName)!.Measure(drain, drain.Cases(new CaseContext(BenchMode.Quick, 1.0, 2))[0], default));
    }

    [Fact]
    public void Supports_AkkaScenarioAndPoolScenario_EachRowRunsOnlyWhatItCan()
    {
        IScenario akka = ScenarioCatalog.Find("akka-pingpong")!;
        IScenario drain = ScenarioCatalog.Find("queue-drain")!;

        Assert.All(PoolCatalog.All.Where(p => p.Name is PoolCatalog.ReferenceName or "SlimPool"), p => Assert.True(p.Supports(akka) && p.Supports(drain), p.Name));
        Assert.All(PoolCatalog.All.Where(p => p is PoolDefinition.AkkaExecutor), p => Assert.True(p.Supports(akka) && !p.Supports(drain), p.Name));
        Assert.All(PoolCatalog.All.Where(p => p is PoolDefinition.Adapter), p => Assert.True(!p.Supports(akka) && p.Supports(drain), p.Name));
        Assert.Throws<NotSupportedException>(() => PoolCatalog.Find(PoolCatalog.AkkaForkJoinName)!.Measure(drain, drain.Cases(new CaseContext(BenchMode.Quick, 1.0, 2))[0], default));
    }
}
