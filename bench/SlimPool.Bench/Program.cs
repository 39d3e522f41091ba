using System.Diagnostics;
using SlimPool.Bench;
using SlimPool.Bench.Pools;
using SlimPool.Bench.Reporting;
using SlimPool.Bench.Scenarios;

BenchSettings settings;
IReadOnlyList<PoolDefinition> pools;
try
{
    settings = BenchSettings.Parse(args);
    pools = PoolCatalog.Select(settings.Pools);
}
catch (ArgumentException exception)
{
    Console.Error.WriteLine($"error: {exception.Message}");
    return 2;
}

if (settings.Help)
{
    Console.WriteLine(BenchSettings.Usage);
    return 0;
}

Console.WriteLine($"SlimPool comparison — {MachineInfo.Describe()}");
Console.WriteLine($"pools: {string.Join(", ", pools.Select(p => p.Name))}; {settings.Repeat} repetitions per cell after a warm-up{(settings.Quick ? "; --quick sizes" : "")}");
foreach (PoolDefinition pool in pools)
{
    Console.WriteLine($"  {pool.Name,-18} {pool.Description}");
}

Console.WriteLine();

var total = Stopwatch.StartNew();
var results = new TinyWorkScenario(settings).Run(pools, new SyncProgress(message => Console.Error.Write($"\r\x1b[2K  running: {message}"))).ToList();
Console.Error.Write("\r\x1b[2K");

Console.WriteLine(TinyWorkTable.Render(results, PoolCatalog.BaselineName));
Console.WriteLine($"total time {total.Elapsed.TotalSeconds:0} s");
return 0;
