using Proto;
using Proto.Remote;
using Proto.Remote.GrpcNet;
using SlimPool;
using SlimPool.ProtoActor;

namespace ProtoRemote;

/// <summary>
/// One node: a pool of its own, an actor system with gRPC remoting on 127.0.0.1 (a port the OS picks), and a
/// <see cref="HashWorker"/> named "worker" whose mailbox runs on the pool.
/// </summary>
public sealed class Node : IAsyncDisposable
{
    private readonly SlimThreadPool _pool;

    private Node(string name, SlimThreadPool pool, ActorSystem system)
    {
        Name = name;
        _pool = pool;
        System = system;
    }

    public string Name { get; }

    public ActorSystem System { get; }

    public static async Task<Node> StartAsync(string name)
    {
        // The node owns its pool; the dispatcher only borrows it.
        var pool = new SlimThreadPool(new SlimThreadPoolOptions { Name = $"{name}-pool" });
        var dispatcher = new SlimPoolDispatcher(pool);
        ActorSystem system = new ActorSystem().WithRemote(RemoteConfig.BindTo("127.0.0.1", 0));
        await system.Remote().StartAsync();
        system.Root.SpawnNamed(Props.FromProducer(() => new HashWorker(name)).WithDispatcher(dispatcher), "worker");
        return new Node(name, pool, system);
    }

    /// <summary>This node's worker, as seen from any node.</summary>
    public PID Worker => PID.FromAddress(System.Address, "worker");

    /// <summary>The actor system first, so that every actor stops on the pool; then the pool, which drains.</summary>
    public async ValueTask DisposeAsync()
    {
        await System.Remote().ShutdownAsync(graceful: true);
        await System.ShutdownAsync("sample over");
        await _pool.DisposeAsync();
    }
}
