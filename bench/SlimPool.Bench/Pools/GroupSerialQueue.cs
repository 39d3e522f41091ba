using SlimPool.Bench.Work;

namespace SlimPool.Bench.Pools;

/// <summary>SlimPool's own serial queue: a group of the pool with <c>MaxConcurrency = 1</c> (default turns: 32 items or 1 ms).</summary>
internal sealed class GroupSerialQueue(SlimThreadPool pool) : ISerialQueue
{
    // One options object for every queue, as an application that makes a group per actor keeps one: the pool reads it
    // when it makes the group, and the hand-written mailbox it is compared with allocates nothing of the kind.
    private static readonly SlimGroupOptions s_serial = new() { MaxConcurrency = 1 };

    private readonly SlimThreadPoolGroup _group = pool.CreateGroup(s_serial);

    public void Post(BenchWorkItem item) => _group.Queue(item);

    // A group's Queue on one of the pool's workers already takes the worker's local path for the group's turn.
    public void PostFromPool(BenchWorkItem item) => _group.Queue(item);

    public void Dispose() => _group.Dispose();
}
