using Proto;
using Proto.Remote;
using Proto.Remote.GrpcNet;
using SlimPool.ProtoActor.Tests.Infrastructure;
using SlimPool.Tests.Infrastructure;

namespace SlimPool.ProtoActor.Tests.Remote;

/// <summary>
/// One node: an actor system with GrpcNet remoting on 127.0.0.1 (a port the OS picks), its own pool, and a named
/// <see cref="NodeActor"/> on that pool. Disposing shuts the remote and the system down, then the pool.
/// </summary>
internal sealed class RemoteNode : IDisposable
{
    public const string ActorName = "node-actor";

    private RemoteNode(string name, SlimThreadPool pool, ActorSystem system, SlimPoolDispatcher dispatcher)
    {
        Name = name;
        Pool = pool;
        System = system;
        Dispatcher = dispatcher;
    }

    public string Name { get; }

    public SlimThreadPool Pool { get; }

    public ActorSystem System { get; }

    public SlimPoolDispatcher Dispatcher { get; }

    /// <summary>host:port, known once the remote has bound its port.</summary>
    public string Address => System.Address;

    public static RemoteNode Start()
    {
        string name = ProtoSystems.UniqueName();
        SlimThreadPool pool = ProtoSystems.Pool(name);
        var dispatcher = new SlimPoolDispatcher(pool);
        // Records go over the wire with Proto's JSON serializer (any type not generated from a .proto file).
        var system = new ActorSystem().WithRemote(RemoteConfig.BindTo("127.0.0.1", 0));
        Bounded.Wait(system.Remote().StartAsync(), $"node {name} to start its remote");
        system.Root.SpawnNamed(Props.FromProducer(() => new NodeActor(name)).WithDispatcher(dispatcher), ActorName);
        return new RemoteNode(name, pool, system, dispatcher);
    }

    /// <summary>The node actor of the node at <paramref name="address"/>.</summary>
    public static PID ActorAt(string address) => PID.FromAddress(address, ActorName);

    public void Dispose()
    {
        try
        {
            Bounded.Wait(System.Remote().ShutdownAsync(graceful: true), $"node {Name}'s remote to shut down");
            ProtoSystems.Shutdown(System);
        }
        finally
        {
            Pool.Dispose();
        }
    }
}
