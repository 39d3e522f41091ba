// Two Proto.Actor nodes on SlimPool, in one process on loopback, joined through Proto.Remote (gRPC): each node sends
// jobs to the other node's worker and to its own, and checks every answer. Exits 0 on success, 1 on any failure.
// Run: dotnet run --project samples/ProtoRemote
using System.Diagnostics;
using Proto;
using ProtoRemote;

const int Jobs = 2_000;
var total = Stopwatch.StartNew();
using var timeout = new CancellationTokenSource(TimeSpan.FromSeconds(60));

async Task<bool> SendJobs(Node from, Node to)
{
    var round = Stopwatch.StartNew();
    Task<Hashed>[] requests = [.. Enumerable.Range(0, Jobs).Select(i => from.System.Root.RequestAsync<Hashed>(
        i % 2 == 0 ? to.Worker : from.Worker, new HashJob($"job {i}"), timeout.Token))];
    Hashed[] results = await Task.WhenAll(requests);
    Dictionary<string, int> perNode = results.GroupBy(r => r.Node).ToDictionary(g => g.Key, g => g.Count());
    string[] threads = [.. results.Select(r => r.Thread).Distinct().Order()];
    Console.WriteLine($"{from.Name}: {Jobs} jobs in {round.ElapsedMilliseconds} ms: {string.Join(", ", perNode.Select(p => $"{p.Key} {p.Value}"))}");
    Console.WriteLine($"  ran on threads: {string.Join(", ", threads.Take(4))}");
    // Half on each node, every one on a SlimPool worker (named "{node}-pool #n").
    return perNode.GetValueOrDefault(from.Name) == Jobs / 2 && perNode.GetValueOrDefault(to.Name) == Jobs / 2
        && threads.All(t => t.StartsWith("a-pool #", StringComparison.Ordinal) || t.StartsWith("b-pool #", StringComparison.Ordinal));
}

try
{
    await using Node a = await Node.StartAsync("a");
    await using Node b = await Node.StartAsync("b");
    Console.WriteLine($"nodes up: a at {a.System.Address}, b at {b.System.Address} ({total.ElapsedMilliseconds} ms)");

    bool ok = await SendJobs(a, b) & await SendJobs(b, a);
    Console.WriteLine(ok ? $"done in {total.ElapsedMilliseconds} ms" : "FAILED: a job ran on the wrong node or off SlimPool");
    return ok ? 0 : 1;
}
catch (Exception exception)
{
    Console.Error.WriteLine($"FAILED: {exception}");
    return 1;
}
