using Proto;
using Proto.Mailbox;
using SlimPool.Tests.Infrastructure;

namespace SlimPool.ProtoActor.Tests.Infrastructure;

/// <summary>Pools, dispatchers and actor systems for the tests, each torn down within a bounded wait.</summary>
internal static class ProtoSystems
{
    /// <summary>How long a request to an actor may take before the test fails (Proto's own timeout, inside <see cref="Bounded.Timeout"/>).</summary>
    public static readonly TimeSpan RequestTimeout = TimeSpan.FromSeconds(30);

    /// <summary>A pool name no other test uses: its workers are named "{name} #n", so an actor can tell it runs on it.</summary>
    public static string UniqueName() => "spp" + Guid.NewGuid().ToString("N")[..6];

    public static SlimThreadPool Pool(string name, int workers = 2, int? boundedCapacity = null) =>
        new(new SlimThreadPoolOptions { Name = name, WorkerCount = workers, BoundedCapacity = boundedCapacity });

    /// <summary>Whether the calling thread is one of the workers of the pool named <paramref name="poolName"/>.</summary>
    public static bool OnPool(string poolName) => Thread.CurrentThread.Name?.StartsWith(poolName + " #", StringComparison.Ordinal) == true;

    /// <summary>The dispatcher a differential test names: SlimPool's over <paramref name="pool"/>, or one of Proto's own.</summary>
    public static IDispatcher Dispatcher(string kind, SlimThreadPool pool) => kind switch
    {
        "slim-pool" => new SlimPoolDispatcher(pool),
        "proto-threadpool" => new ThreadPoolDispatcher(),
        "proto-default" => Dispatchers.DefaultDispatcher,
        _ => throw new ArgumentOutOfRangeException(nameof(kind), kind, "unknown dispatcher"),
    };

    public static T Request<T>(ActorSystem system, PID pid, object message) =>
        Bounded.Result(system.Root.RequestAsync<T>(pid, message, RequestTimeout), $"an answer to {message} from {pid.Id}");

    /// <summary>Shuts <paramref name="system"/> down, bounded.</summary>
    public static void Shutdown(ActorSystem system) => Bounded.Wait(system.ShutdownAsync("test over"), "the actor system to shut down");
}
