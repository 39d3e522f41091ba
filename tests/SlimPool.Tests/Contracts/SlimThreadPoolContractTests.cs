namespace SlimPool.Tests.Contracts;

/// <summary>The contract suite for one SlimPool queue × idle-wait configuration.</summary>
public abstract class SlimThreadPoolContractTests(WorkQueueKind queue, IdleWaitKind idleWait, int workerCount = 2) : ThreadPoolContractTests
{
    protected override IThreadPool CreatePool(Action<Exception>? unhandledException = null, bool flowExecutionContext = false) =>
        new SlimThreadPool(new SlimThreadPoolOptions
        {
            Queue = queue,
            IdleWait = idleWait,
            WorkerCount = workerCount,
            FlowExecutionContext = flowExecutionContext,
            UnhandledException = unhandledException,
            ThreadNamePrefix = $"SlimPool test {queue}/{idleWait}",
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

public sealed class ManagedThreadPoolContractTests : ThreadPoolContractTests
{
    protected override bool OwnsItsThreads => false;

    protected override IThreadPool CreatePool(Action<Exception>? unhandledException = null, bool flowExecutionContext = false) =>
        new ManagedThreadPool(flowExecutionContext, unhandledException);
}
