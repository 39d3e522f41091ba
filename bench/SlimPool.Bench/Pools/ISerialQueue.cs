using SlimPool.Bench.Work;

namespace SlimPool.Bench.Pools;

/// <summary>
/// A queue whose items run one at a time, in the order posted, on a pool's threads: an actor's mailbox, a
/// connection's pipeline. SlimPool has one built in (a group of one); on other pools it is what a .NET engineer
/// writes by hand (<see cref="MailboxSerialQueue{TPool}"/>).
/// </summary>
internal interface ISerialQueue : IDisposable
{
    /// <summary>Queues <paramref name="item"/> behind every item posted before it.</summary>
    void Post(BenchWorkItem item);

    /// <summary>
    /// Queues <paramref name="item"/> as <see cref="Post"/> does, from inside an item running on the pool (an actor
    /// answering another): where the queue schedules itself, it does so on the pool's local, preferred path.
    /// </summary>
    void PostFromPool(BenchWorkItem item);
}
