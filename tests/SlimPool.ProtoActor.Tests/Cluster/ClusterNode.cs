using System.Globalization;
using Proto;
using Proto.Cluster;
using Proto.Cluster.Partition;
using Proto.Remote;
using Proto.Remote.GrpcNet;
using SlimPool.ProtoActor.Tests.Infrastructure;
using SlimPool.ProtoActor.Tests.Remote;
using SlimPool.Tests.Infrastructure;

namespace SlimPool.ProtoActor.Tests.Cluster;

/// <summary>
/// One member of a Proto.Cluster on 127.0.0.1, found through Proto.Cluster's own seed-node provider (no outside
/// service), with a pool of its own. Its virtual actors of kind <see cref="Kind"/> are <see cref="NodeActor"/>s on that pool.
/// </summary>
internal sealed class ClusterNode : IDisposable
{
    public const string Kind = "greeter";

    private ClusterNode(string name, SlimThreadPool pool, ActorSystem system)
    {
        Name = name;
        Pool = pool;
        System = system;
    }

    public string Name { get; }

    public SlimThreadPool Pool { get; }

    public ActorSystem System { get; }

    /// <summary>The port this member's remote bound (the OS picked it).</summary>
    public int Port => int.Parse(System.Address[(System.Address.LastIndexOf(':') + 1)..], CultureInfo.InvariantCulture);

    public static ClusterNode Start(string clusterName, IClusterProvider provider)
    {
        string name = ProtoSystems.UniqueName();
        SlimThreadPool pool = ProtoSystems.Pool(name);
        Props greeter = Props.FromProducer(() => new NodeActor(name)).WithDispatcher(new SlimPoolDispatcher(pool));
        // A request waits as long as the test's own bound (Proto's default gives up after 5 s): on a loaded 2-core
        // machine an identity's first activation, while the partitions settle, can take longer, and the test is about
        // where actors run, not how fast the cluster answers.
        ClusterConfig config = ClusterConfig.Setup(clusterName, provider, new PartitionIdentityLookup())
            .WithClusterKind(Kind, greeter)
            .WithActorRequestTimeout(ProtoSystems.RequestTimeout);
        ActorSystem system = new ActorSystem().WithRemote(RemoteConfig.BindTo("127.0.0.1", 0)).WithCluster(config);
        Bounded.Wait(system.Cluster().StartMemberAsync(), $"member {name} to start");
        return new ClusterNode(name, pool, system);
    }

    public void Dispose()
    {
        try
        {
            Bounded.Wait(System.Cluster().ShutdownAsync(graceful: true, "test over"), $"member {Name} to leave");
        }
        finally
        {
            Pool.Dispose();
        }
    }
}
