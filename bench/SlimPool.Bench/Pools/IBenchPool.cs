using SlimPool.Bench.Work;

namespace SlimPool.Bench.Pools;

/// <summary>
/// What a scenario asks of a pool, each member mapped onto that pool's own fastest public API. Scenarios take it
/// as a generic struct argument (<c>where TPool : struct, IBenchPool</c>), so the JIT compiles one copy of the
/// scenario per pool with the calls made directly: no interface dispatch, no adapter in the measured path.
/// </summary>
internal interface IBenchPool
{
    /// <summary>The number of threads the pool runs items on right now.</summary>
    int ThreadCount { get; }

    /// <summary>Queues <paramref name="item"/> from a thread that is not one of the pool's.</summary>
    void Queue(BenchWorkItem item);

    /// <summary>
    /// Queues <paramref name="items"/> from a thread that is not one of the pool's, in one call where the pool has a
    /// batch form (SlimPool's <c>QueueBatch</c>), else one call an item.
    /// </summary>
    void QueueBatch(BenchWorkItem[] items);

    /// <summary>Queues <paramref name="item"/> from inside an item running on the pool (the local, preferred path).</summary>
    void QueueFromPool(BenchWorkItem item);

    /// <summary>Starts an async flow on the pool, so that its continuations run there too.</summary>
    Task Run(Func<Task> flow);

    /// <summary>Runs <paramref name="action"/>, which blocks, telling the pool first where the pool has a way to be told.</summary>
    void RunBlocking(Action action);

    /// <summary>A new serial queue on the pool: its own kind where it has one, else a mailbox written by hand.</summary>
    ISerialQueue CreateSerialQueue();
}
