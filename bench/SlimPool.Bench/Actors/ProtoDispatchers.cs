using Proto.Mailbox;
using SlimPool.ProtoActor;

namespace SlimPool.Bench.Actors;

/// <summary>The Proto.Actor dispatchers the proto scenarios compare, all at the same <see cref="Throughput"/>.</summary>
internal static class ProtoDispatchers
{
    /// <summary>
    /// Messages a mailbox run processes before it gives its thread back: Proto's own default (300), which its default
    /// dispatcher is fixed at (a process-wide instance, left as it is), so every row uses it.
    /// </summary>
    public const int Throughput = SlimPoolDispatcher.DefaultThroughput;

    /// <summary>
    /// Proto's default dispatcher: its mailbox sees this instance and queues itself on the built-in pool as an
    /// <see cref="IThreadPoolWorkItem"/> (<c>UnsafeQueueUserWorkItem(mailbox, preferLocal: false)</c>), no allocation.
    /// </summary>
    public static IDispatcher Default => Dispatchers.DefaultDispatcher;

    /// <summary>Proto's <see cref="ThreadPoolDispatcher"/> as a user creates it: <c>Task.Factory.StartNew</c> per mailbox run.</summary>
    public static IDispatcher ThreadPool() => new ThreadPoolDispatcher(Throughput);

    /// <summary>SlimPool.ProtoActor's dispatcher over <paramref name="pool"/>.</summary>
    public static IDispatcher Slim(SlimThreadPool pool) => new SlimPoolDispatcher(pool, Throughput);
}
