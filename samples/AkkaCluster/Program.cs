// Two Akka.Cluster nodes on SlimPool, in one process on loopback: they form a cluster, a cluster-aware router spreads
// work over both, then one node leaves and the other carries on alone. Run: dotnet run --project samples/AkkaCluster
using System.Diagnostics;
using Akka.Actor;
using Akka.Cluster;
using Akka.Configuration;
using Akka.Routing;
using AkkaCluster;

const int Jobs = 10_000;
Config config = ConfigurationFactory.ParseString(File.ReadAllText(Path.Combine(AppContext.BaseDirectory, "node.hocon")));

ActorSystem StartNode(string name)
{
    ActorSystem system = ActorSystem.Create("sample", config); // the same system name: the same cluster
    system.ActorOf(Props.Create(() => new HashWorker(name)), "worker");
    return system;
}

async Task<Dictionary<string, int>> HashAll(IActorRef router)
{
    Task<HashWorker.Hashed>[] asks = [.. Enumerable.Range(0, Jobs).Select(i => router.Ask<HashWorker.Hashed>($"job {i}", TimeSpan.FromSeconds(30)))];
    HashWorker.Hashed[] results = await Task.WhenAll(asks);
    Console.WriteLine($"  ran on threads: {string.Join(", ", results.Select(r => r.Thread).Distinct().Order().Take(4))}");
    return results.GroupBy(r => r.Node).ToDictionary(g => g.Key, g => g.Count());
}

async Task WaitUntil(Func<bool> condition, string what)
{
    var clock = Stopwatch.StartNew();
    while (!condition())
    {
        if (clock.Elapsed > TimeSpan.FromSeconds(30))
        {
            throw new TimeoutException($"Timed out waiting until {what}.");
        }

        await Task.Delay(50);
    }
}

var total = Stopwatch.StartNew();
ActorSystem seed = StartNode("seed"), member = StartNode("member");
Cluster seedCluster = Cluster.Get(seed), memberCluster = Cluster.Get(member);
seedCluster.Join(seedCluster.SelfAddress);
memberCluster.Join(seedCluster.SelfAddress);
await WaitUntil(() => seedCluster.State.Members.Count(m => m.Status == MemberStatus.Up) == 2, "both nodes are up");
Console.WriteLine($"cluster formed: {seedCluster.SelfAddress} and {memberCluster.SelfAddress} ({total.ElapsedMilliseconds} ms)");

IActorRef router = seed.ActorOf(Props.Empty.WithRouter(FromConfig.Instance), "hasher");
await WaitUntil(() => router.Ask<Routees>(GetRoutees.Instance).Result.Members.Count() == 2, "the router sees both workers");

var round = Stopwatch.StartNew();
Dictionary<string, int> perNode = await HashAll(router);
Console.WriteLine($"{Jobs} jobs through the router in {round.ElapsedMilliseconds} ms: {string.Join(", ", perNode.Select(p => $"{p.Key} {p.Value}"))}");

memberCluster.Leave(memberCluster.SelfAddress);
await member.WhenTerminated.WaitAsync(TimeSpan.FromSeconds(30));
await WaitUntil(() => seedCluster.State.Members.Count == 1, "the seed sees the member gone");
Console.WriteLine($"member left; the seed carries on alone ({total.ElapsedMilliseconds} ms)");

round.Restart();
perNode = await HashAll(router);
Console.WriteLine($"{Jobs} jobs through the router in {round.ElapsedMilliseconds} ms: {string.Join(", ", perNode.Select(p => $"{p.Key} {p.Value}"))}");

await seed.Terminate().WaitAsync(TimeSpan.FromSeconds(30));
Console.WriteLine($"done in {total.ElapsedMilliseconds} ms");
