using System.CommandLine;
using SlimPool.Bench;
using SlimPool.Bench.Charts;
using SlimPool.Bench.Pools;
using SlimPool.Bench.Reporting;
using SlimPool.Bench.Running;
using SlimPool.Bench.Scenarios;

if (args.Length > 0 && args[0] == ChildProtocol.Switch)
{
    return ChildProtocol.RunChild(Console.In, Console.Out, Console.Error);
}

var commandLine = new CommandLine();
ParseResult parsed = commandLine.Root.Parse(args);
if (parsed.Errors.Count > 0)
{
    Console.Error.WriteLine($"error: {parsed.Errors[0].Message} (see --help)");
    return 2;
}

if (parsed.Action is not null && parsed.Action.GetType().Name.Contains("Help", StringComparison.Ordinal))
{
    return parsed.Invoke();
}

BenchSettings settings;
IReadOnlyList<PoolDefinition> pools;
IReadOnlyList<IScenario> scenarios;
try
{
    if (commandLine.MonitorSeconds(parsed) is int monitorSeconds)
    {
        return MetricsMonitor.Run(monitorSeconds, Console.Out);
    }

    settings = commandLine.Read(parsed);
    if (settings.Cpus is not null)
    {
        ChildProcessRunner.RequireTaskset();
    }

    pools = PoolCatalog.Select(settings.Pools);
    scenarios = ScenarioCatalog.Select(settings.Scenarios);
}
catch (ArgumentException exception)
{
    Console.Error.WriteLine($"error: {exception.Message}");
    return 2;
}

var console = new ResultConsole();
console.Header(settings, pools, scenarios);
IRepetitionRunner runner = settings.Isolation == Isolation.Process ? new ChildProcessRunner() : new InProcessRunner();
BenchReport report = new BenchRunner(settings, pools, runner, console).Run(scenarios);
console.Summary(report);

if (settings.JsonPath is { Length: > 0 } jsonPath)
{
    ResultsJson.Write(jsonPath, report);
    Console.WriteLine($"results: {Path.GetFullPath(jsonPath)}");
}

if (settings.MarkdownPath is { Length: > 0 } markdownPath)
{
    Directory.CreateDirectory(Path.GetDirectoryName(Path.GetFullPath(markdownPath))!);
    File.WriteAllText(markdownPath, SummaryTable.Text(report.Results));
    Console.WriteLine($"summary: {Path.GetFullPath(markdownPath)}");
}

if (settings.ChartDirectory is { Length: > 0 } chartDirectory)
{
    foreach (string chart in ForestChart.Write(report.Results, chartDirectory)
        .Concat(TinyWorkChart.Write(report.Results, chartDirectory))
        .Concat(ScalingChart.Write(report.Results, chartDirectory)))
    {
        Console.WriteLine($"chart:   {Path.GetFullPath(chart)}");
    }
}

Console.WriteLine($"total time {report.Elapsed.TotalSeconds:0} s");
return 0;
