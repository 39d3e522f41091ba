using Akka.Actor;
using SlimPool.Akka.Tests.Infrastructure;

namespace SlimPool.Akka.Tests.Cluster;

/// <summary>
/// One node of a loopback cluster: an actor system named "cluster" on 127.0.0.1 with a port the OS picks, whose
/// default dispatcher runs on SlimPool (its threads named with a prefix of its own), and a worker at /user/worker.
/// </summary>
internal sealed class ClusterNode
{
    // Short gossip and leader intervals: the test forms, shrinks and regrows a cluster in seconds.
    private const string ClusterHocon = """
        akka.actor.provider = cluster
        akka.remote.dot-netty.tcp { hostname = "127.0.0.1", port = 0 }
        akka.cluster {
          gossip-interval = 200ms
          leader-actions-interval = 200ms
          periodic-tasks-initial-delay = 100ms
          unreachable-nodes-reaper-interval = 200ms
          min-nr-of-members = 1
        }
        akka.coordinated-shutdown.run-by-clr-shutdown-hook = off
        akka.actor.deployment./router {
          router = round-robin-group
          routees.paths = ["/user/worker"]
          cluster { enabled = on, allow-local-routees = on }
        }
        """;

    private ClusterNode(string name)
    {
        Name = name;
        ThreadNamePrefix = AkkaSystems.UniquePrefix();
        System = AkkaSystems.Create("cluster", AkkaSystems.SlimDefaultDispatcher(ThreadNamePrefix), ClusterHocon);
        Cluster = global::Akka.Cluster.Cluster.Get(System);
        System.ActorOf(Props.Create(() => new NodeNameActor(name, ThreadNamePrefix)), "worker");
    }

    public string Name { get; }

    public string ThreadNamePrefix { get; }

    public ActorSystem System { get; }

    public global::Akka.Cluster.Cluster Cluster { get; }

    public static ClusterNode Start(string name) => new(name);

    public void Join(ClusterNode seed) => Cluster.Join(seed.Cluster.SelfAddress);
}
