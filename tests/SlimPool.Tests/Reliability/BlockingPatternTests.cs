using SlimPool.Tests.Infrastructure;

namespace SlimPool.Tests.Reliability;

/// <summary>
/// The differential blocking suite: every <see cref="BlockingPatterns"/> pattern runs on the built-in pool (the
/// control, through <see cref="ManagedThreadPool"/>) and on SlimPool in every queue × idle-wait configuration with
/// the default options (no blocking hint, starvation guard at its default). Rule: what the control survives, SlimPool
/// survives, within <see cref="BlockingPatterns.Deadline"/>: 1 s and 5 <see cref="SlimThreadPoolOptions.StarvationTimeout"/>s
/// beyond one timeout per spare the pattern needs on this machine's cores.
/// </summary>
/// <remarks>
/// The classes share one collection that runs alone: the patterns measure how fast a pool recovers, and other
/// tests' threads competing for the two cores would only blur that.
/// </remarks>
[Collection(BlockingPatternCollection.Name)]
public abstract class BlockingPatternTests
{
    public static TheoryData<string> Patterns => [.. BlockingPatterns.Names];

    /// <summary>The base worker count the patterns scale with.</summary>
    protected virtual int Workers => Environment.ProcessorCount;

    protected abstract TimeSpan Deadline(string pattern);

    protected abstract IThreadPool CreatePool();

    [Theory]
    [MemberData(nameof(Patterns))]
    public void Pattern_DefaultOptionsNoBlockingHint_CompletesWithinDeadline(string pattern)
    {
        IThreadPool pool = CreatePool();
        try
        {
            BlockingPatterns.Run(pattern, pool, Workers, Deadline(pattern));
        }
        finally
        {
            Bounded.Run(pool.Dispose, "disposing the pool after the pattern");
        }
    }
}

[CollectionDefinition(Name, DisableParallelization = true)]
public sealed class BlockingPatternCollection
{
    public const string Name = "Blocking patterns (alone)";
}

/// <summary>The control: the built-in pool, which recovers from each pattern by injecting threads.</summary>
public sealed class ManagedThreadPoolBlockingPatternTests : BlockingPatternTests
{
    protected override TimeSpan Deadline(string pattern) => Bounded.Timeout;

    protected override IThreadPool CreatePool() => new ManagedThreadPool(flowExecutionContext: false);
}

public abstract class SlimPoolBlockingPatternTests(WorkQueueKind queue, IdleWaitKind idleWait) : BlockingPatternTests
{
    private static readonly TimeSpan s_starvationTimeout = new SlimThreadPoolOptions().StarvationTimeout;

    protected override TimeSpan Deadline(string pattern) => BlockingPatterns.Deadline(pattern, Workers, s_starvationTimeout);

    protected override IThreadPool CreatePool() =>
        new SlimThreadPool(new SlimThreadPoolOptions { Queue = queue, IdleWait = idleWait, Name = $"blocking {queue}/{idleWait}" });
}

public sealed class LockedAutoResetEventBlockingPatternTests() : SlimPoolBlockingPatternTests(WorkQueueKind.Locked, IdleWaitKind.AutoResetEvent);

public sealed class LockedSpinThenParkBlockingPatternTests() : SlimPoolBlockingPatternTests(WorkQueueKind.Locked, IdleWaitKind.SpinThenPark);

public sealed class LockFreeAutoResetEventBlockingPatternTests() : SlimPoolBlockingPatternTests(WorkQueueKind.LockFree, IdleWaitKind.AutoResetEvent);

public sealed class LockFreeSpinThenParkBlockingPatternTests() : SlimPoolBlockingPatternTests(WorkQueueKind.LockFree, IdleWaitKind.SpinThenPark);

public sealed class WorkStealingAutoResetEventBlockingPatternTests() : SlimPoolBlockingPatternTests(WorkQueueKind.WorkStealing, IdleWaitKind.AutoResetEvent);

public sealed class WorkStealingSpinThenParkBlockingPatternTests() : SlimPoolBlockingPatternTests(WorkQueueKind.WorkStealing, IdleWaitKind.SpinThenPark);
