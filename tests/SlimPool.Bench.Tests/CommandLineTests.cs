using SlimPool.Bench;
using SlimPool.Bench.Pools;
using SlimPool.Bench.Running;
using SlimPool.Bench.Scenarios;

namespace SlimPool.Bench.Tests;

public sealed class CommandLineTests
{
    private static BenchSettings Read(params string[] args)
    {
        var commandLine = new CommandLine();
        var parsed = commandLine.Root.Parse(args);
        Assert.Empty(parsed.Errors);
        return commandLine.Read(parsed);
    }

    [Fact]
    public void Read_NoArguments_GivesDefaults()
    {
        BenchSettings settings = Read();

        Assert.Equal(BenchMode.Default, settings.Mode);
        Assert.Equal(5, settings.MinRepeat);
        Assert.Equal(10, settings.MaxRepeat);
        Assert.Equal(0.05, settings.TargetHalfWidth);
        Assert.Equal(Isolation.Process, settings.Isolation);
        Assert.Null(settings.Workers);
        Assert.Null(settings.Cpus);
        Assert.EndsWith("results.json", settings.JsonPath, StringComparison.Ordinal);
        Assert.EndsWith("summary.md", settings.MarkdownPath, StringComparison.Ordinal);
    }

    [Fact]
    public void Read_QuickWithLists_ParsesEachList()
    {
        BenchSettings settings = Read("--quick", "--workers", "2,25", "--work", "0.1,10", "--pools", "SlimPool,ThreadPool", "--cpus", "1,2", "--isolation", "process");

        Assert.Equal(BenchSettings.QuickMinRepeat, settings.MinRepeat);
        Assert.Equal(BenchSettings.QuickMaxRepeat, settings.MaxRepeat);
        Assert.Equal([2, 25], settings.Workers);
        Assert.Equal([0.1, 10], settings.WorkSizes);
        Assert.Equal(["SlimPool", "ThreadPool"], settings.Pools);
        Assert.Equal([1, 2], settings.Cpus);
    }

    [Fact]
    public void Read_AllCasesOrFull_RunsEveryCase()
    {
        Assert.False(Read().AllCases);
        Assert.True(Read("--all-cases").AllCases);
        Assert.True(Read("--full").AllCases);
    }

    [Fact]
    public void Read_QuickWithAllCases_ThrowsNamingBoth()
    {
        var commandLine = new CommandLine();
        var exception = Assert.Throws<ArgumentException>(() => commandLine.Read(commandLine.Root.Parse(["--quick", "--all-cases"])));
        Assert.Contains("--all-cases", exception.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void Read_RepeatN_RunsExactlyNRepetitions()
    {
        BenchSettings settings = Read("--quick", "--repeat", "7");

        Assert.Equal(7, settings.MinRepeat);
        Assert.Equal(7, settings.MaxRepeat);
    }

    [Theory]
    [InlineData("--repeat", "0")]
    [InlineData("--repeat", "x")]
    [InlineData("--workers", "0")]
    [InlineData("--work", "-5")]
    [InlineData("--cpus", "0")]
    [InlineData("--isolation", "thread")]
    public void Read_BadNumber_ThrowsArgumentExceptionNamingTheOption(string option, string value)
    {
        var exception = Assert.Throws<ArgumentException>(() => Read(option, value));

        Assert.Contains(option, exception.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void Read_CpusInProcess_ThrowsArgumentExceptionNamingBothOptions()
    {
        var exception = Assert.Throws<ArgumentException>(() => Read("--cpus", "1", "--isolation", "inproc"));

        Assert.Contains("--cpus", exception.Message, StringComparison.Ordinal);
        Assert.Contains("--isolation", exception.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void Select_NoNames_GivesTheReferenceFirstAndNoAdapter()
    {
        IReadOnlyList<PoolDefinition> pools = PoolCatalog.Select(null);

        Assert.True(pools[0].IsReference);
        Assert.Equal(["ThreadPool", "SlimPool"], pools.Select(p => p.Name));
        Assert.Single(PoolCatalog.All, p => p.IsReference);
    }

    [Fact]
    public void Select_NamesWithoutTheReference_AddsItFirst()
    {
        IReadOnlyList<PoolDefinition> pools = PoolCatalog.Select(["LockFree+ARE"]);

        Assert.Equal(["ThreadPool", "LockFree+ARE"], pools.Select(p => p.Name));
    }

    [Fact]
    public void Select_UnknownPoolOrScenario_ThrowsArgumentException()
    {
        Assert.Throws<ArgumentException>(() => PoolCatalog.Select(["NoSuchPool"]));
        Assert.Throws<ArgumentException>(() => ScenarioCatalog.Select(["no-such-scenario"]));
    }

    [Theory]
    [InlineData(new string[0], null)]
    [InlineData(new[] { "--monitor" }, 5)]
    [InlineData(new[] { "--monitor", "3" }, 3)]
    public void MonitorSeconds_Given_ParsesOrDefaults(string[] args, int? expected)
    {
        var commandLine = new CommandLine();
        var parsed = commandLine.Root.Parse(args);

        Assert.Empty(parsed.Errors);
        Assert.Equal(expected, commandLine.MonitorSeconds(parsed));
    }

    [Theory]
    [InlineData("0")]
    [InlineData("x")]
    [InlineData("3601")]
    public void MonitorSeconds_Bad_ThrowsArgumentExceptionNamingTheOption(string value)
    {
        var commandLine = new CommandLine();
        var parsed = commandLine.Root.Parse(["--monitor", value]);

        var exception = Assert.Throws<ArgumentException>(() => commandLine.MonitorSeconds(parsed));
        Assert.Contains("--monitor", exception.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void MetricsMonitor_OneSecond_PrintsThePoolsInstrumentsTaggedWithItsName()
    {
        using var output = new StringWriter();

        int exitCode = SlimPool.Bench.Reporting.MetricsMonitor.Run(1, output);

        string text = output.ToString();
        Assert.Equal(0, exitCode);
        Assert.Contains("[SlimPool]", text, StringComparison.Ordinal);
        foreach (string instrument in new[] { "slimpool.queue.length", "slimpool.worker.count", "slimpool.work_item.completed", "slimpool.work_item.queue_wait", "slimpool.work_item.duration", "slimpool.work_item.slow", "slimpool.group.queue.length" })
        {
            Assert.Contains(instrument, text, StringComparison.Ordinal);
        }

        Assert.Contains("slimpool.pool.name=orders", text, StringComparison.Ordinal);
        Assert.Contains("slimpool.group.name=payments", text, StringComparison.Ordinal);
        Assert.Contains("starvation guard fired:", text, StringComparison.Ordinal);
        Assert.Contains("SlowReport (at least", text, StringComparison.Ordinal); // the first burst's 80 ms item, named
    }
}
