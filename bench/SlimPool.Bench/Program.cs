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
var progress = new SyncProgress(message => Console.Error.Write($"\r\x1b[2K  running: {message}"));
var results = new List<CellResult>();
var group = new List<CellResult>();
foreach (CellResult cell in new TinyWorkScenario(settings).Run(pools, progress))
{
    // Print each table as soon as its last pool has run.
    if (group.Count > 0 && (group[0].Variant, group[0].Parameter) != (cell.Variant, cell.Parameter))
    {
        PrintTable(group);
        group.Clear();
    }

    group.Add(cell);
    results.Add(cell);
}

PrintTable(group);
Console.WriteLine($"total time {total.Elapsed.TotalSeconds:0} s");
return 0;

static void PrintTable(IReadOnlyList<CellResult> group)
{
    Console.Error.Write("\r\x1b[2K");
    Console.Write(TinyWorkTable.Render(group, PoolCatalog.BaselineName));
    Console.Out.Flush();
}
