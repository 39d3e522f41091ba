namespace SlimPool.Tests.Contracts;

/// <summary>
/// The contract suite for one SlimPool queue × idle-wait configuration, with the starvation guard off: the guard
/// adds a worker when items wait without progress, which would rescue (and so hide) a lost wake-up.
/// </summary>
public abstract class SlimThreadPoolContractTests(WorkQueueKind queue, IdleWaitKind idleWait, int workerCount = 2, bool starvationGuard = false) : ThreadPoolContractTests
{
    protected override IThreadPool CreatePool(Action<Exception>? unhandledException = null, bool flowExecutionContext = false) =>
        new SlimThreadPool(new SlimThreadPoolOptions
        {
            Queue = queue,
            IdleWait = idleWait,
            WorkerCount = workerCount,
            FlowExecutionContext = flowExecutionContext,
            UnhandledException = unhandledException,
            Name = $"SlimPool test {queue}/{idleWait}",
            StarvationTimeout = starvationGuard ? TimeSpan.FromMilliseconds(50) : Timeout.InfiniteTimeSpan,
        });
}

public sealed class LockedAutoResetEventContractTests() : SlimThreadPoolContractTests(WorkQueueKind.Locked, IdleWaitKind.AutoResetEvent);

public sealed class LockedSpinThenParkContractTests() : SlimThreadPoolContractTests(WorkQueueKind.Locked, IdleWaitKind.SpinThenPark);

public sealed class LockFreeAutoResetEventContractTests() : SlimThreadPoolContractTests(WorkQueueKind.LockFree, IdleWaitKind.AutoResetEvent);

public sealed class LockFreeSpinThenParkContractTests() : SlimThreadPoolContractTests(WorkQueueKind.LockFree, IdleWaitKind.SpinThenPark);

public sealed class WorkStealingAutoResetEventContractTests() : SlimThreadPoolContractTests(WorkQueueKind.WorkStealing, IdleWaitKind.AutoResetEvent);

public sealed class WorkStealingSpinThenParkContractTests() : SlimThreadPoolContractTests(WorkQueueKind.WorkStealing, IdleWaitKind.SpinThenPark);

/// <summary>One worker: the tightest case for the idle protocol (nobody else to pick up a stranded item).</summary>
public sealed class SingleWorkerSpinThenParkContractTests() : SlimThreadPoolContractTests(WorkQueueKind.WorkStealing, IdleWaitKind.SpinThenPark, workerCount: 1);

/// <summary>More workers than cores: workers are preempted in the middle of the protocol.</summary>
public sealed class OversubscribedSpinThenParkContractTests() : SlimThreadPoolContractTests(WorkQueueKind.LockFree, IdleWaitKind.SpinThenPark, workerCount: 8);

/// <summary>The default options, starvation guard included.</summary>
public sealed class DefaultOptionsContractTests() : SlimThreadPoolContractTests(WorkQueueKind.WorkStealing, IdleWaitKind.SpinThenPark, starvationGuard: true);

public sealed class ManagedThreadPoolContractTests : ThreadPoolContractTests
{
    protected override bool OwnsItsThreads => false;

    protected override IThreadPool CreatePool(Action<Exception>? unhandledException = null, bool flowExecutionContext = false) =>
        new ManagedThreadPool(flowExecutionContext, unhandledException);
}

/// <summary>
/// The contract suite for a group of a pool's items: the group is the <see cref="IThreadPool"/> under test; its pool
/// (default options, guard off) belongs to the test and is disposed with it.
/// </summary>
public abstract class GroupContractTests(int maxConcurrency, int maxItemsPerTurn = 32) : ThreadPoolContractTests, IDisposable
{
    private readonly List<SlimThreadPool> _pools = [];

    protected override bool OwnsItsThreads => false; // the pool's workers run the group's items

    protected override IThreadPool CreatePool(Action<Exception>? unhandledException = null, bool flowExecutionContext = false)
    {
        var pool = new SlimThreadPool(new SlimThreadPoolOptions
        {
            WorkerCount = 2,
            FlowExecutionContext = flowExecutionContext,
            UnhandledException = unhandledException,
            Name = $"SlimPool group test {maxConcurrency}",
            StarvationTimeout = Timeout.InfiniteTimeSpan,
        });
        lock (_pools)
        {
            _pools.Add(pool);
        }

        return pool.CreateGroup(new SlimGroupOptions { MaxConcurrency = maxConcurrency, MaxItemsPerTurn = maxItemsPerTurn });
    }

    public void Dispose()
    {
        foreach (SlimThreadPool pool in _pools)
        {
            Infrastructure.Bounded.Run(pool.Dispose, "the group's pool to dispose");
        }

        GC.SuppressFinalize(this);
    }
}

/// <summary>A serial group: one item at a time.</summary>
public sealed class SerialGroupContractTests() : GroupContractTests(maxConcurrency: 1);

/// <summary>A group wider than the pool, turns of one item: every item is a turn that yields.</summary>
public sealed class WideGroupContractTests() : GroupContractTests(maxConcurrency: 4, maxItemsPerTurn: 1);
