using System.CommandLine;
using SlimPool.Bench;
using SlimPool.Bench.Pools;
using SlimPool.Bench.Reporting;
using SlimPool.Bench.Scenarios;

if (args.Length > 0 && args[0] == IoLatencyScenario.ChildSwitch)
{
    return IoLatencyScenario.RunChild(args);
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

try
{
    if (commandLine.MonitorSeconds(parsed) is int monitorSeconds)
    {
        return MetricsMonitor.Run(monitorSeconds, Console.Out);
    }
}
catch (ArgumentException exception)
{
    Console.Error.WriteLine($"error: {exception.Message}");
    return 2;
}

BenchSettings settings;
IReadOnlyList<PoolDefinition> pools;
IReadOnlyList<IScenario> scenarios;
try
{
    settings = commandLine.Read(parsed);
    pools = PoolCatalog.Select(settings.Pools);
    scenarios = ScenarioCatalog.Select(settings.Scenarios);
}
catch (ArgumentException exception)
{
    Console.Error.WriteLine($"error: {exception.Message}");
    return 2;
}

return BenchRunner.Run(settings, pools, scenarios);
