using SlimPool.Bench;
using SlimPool.Bench.Running;
using SlimPool.Bench.Scenarios;

namespace SlimPool.Bench.Tests;

/// <summary>Which cases a run measures: every scenario in the default run, the extended ones with --all-cases.</summary>
public sealed class CaseSelectionTests
{
    [Theory]
    [MemberData(nameof(ScenarioSmokeTests.Scenarios), MemberType = typeof(ScenarioSmokeTests))]
    public void Select_DefaultRun_KeepsAtLeastOneCaseOfEveryScenario(string name)
    {
        IReadOnlyList<BenchCase> cases = ScenarioCatalog.Find(name)!.Cases(new CaseContext(BenchMode.Default, NanosecondsPerIteration: 1.0, Cores: 2));

        Assert.NotEmpty(CaseSelection.Select(cases, new BenchSettings()));
    }

    [Fact]
    public void Select_DefaultRun_LeavesOutTheExtendedCases()
    {
        var context = new CaseContext(BenchMode.Default, NanosecondsPerIteration: 1.0, Cores: 2);
        IReadOnlyList<BenchCase> tiny = ScenarioCatalog.Find("tiny-work")!.Cases(context);
        IReadOnlyList<BenchCase> akka = ScenarioCatalog.Find("akka-pingpong")!.Cases(context);

        Assert.Equal(["cap-0.1us", "cap-1us"], CaseSelection.Select(tiny, new BenchSettings()).Select(c => c.Key));
        Assert.Equal(["pairs-8"], CaseSelection.Select(akka, new BenchSettings()).Select(c => c.Key));
        Assert.Equal(5, CaseSelection.Select(tiny, new BenchSettings { AllCases = true }).Count);
        Assert.Equal(["pairs-1", "pairs-8", "pairs-64"], CaseSelection.Select(akka, new BenchSettings { AllCases = true }).Select(c => c.Key));
    }

    [Fact]
    public void Select_SizesTheUserListed_AreNeverLeftOut()
    {
        var context = new CaseContext(BenchMode.Default, NanosecondsPerIteration: 1.0, Cores: 2, WorkSizes: [10, 1000]);
        IReadOnlyList<BenchCase> tiny = ScenarioCatalog.Find("tiny-work")!.Cases(context);

        Assert.Equal(["cap-10us", "cap-1000us"], CaseSelection.Select(tiny, new BenchSettings { WorkSizes = [10, 1000] }).Select(c => c.Key));
    }

    [Fact]
    public void Select_Quick_TakesTheFirstCaseOnly()
    {
        IReadOnlyList<BenchCase> cases = ScenarioCatalog.Find("real-work")!.Cases(new CaseContext(BenchMode.Quick, NanosecondsPerIteration: 1.0, Cores: 2));

        Assert.Equal(["json"], CaseSelection.Select(cases, new BenchSettings { Mode = BenchMode.Quick }).Select(c => c.Key));
    }
}
