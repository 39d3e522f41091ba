namespace SlimPool.Tests.Composition;

/// <summary>
/// What the ledger saw of one step of an item (an async item has one per await, plus one): how often it ran, and where,
/// when and in what context it first ran. Written by the thread that runs the step, read once the program has settled.
/// </summary>
internal sealed class StepRecord
{
    private int _poolRuns;
    private int _testRuns;

    /// <summary>Runs by the pool (or anything but the test's running of handed-back items).</summary>
    public int PoolRuns => Volatile.Read(ref _poolRuns);

    /// <summary>Runs by the test, of an item a shutdown handed back.</summary>
    public int TestRuns => Volatile.Read(ref _testRuns);

    public int Runs => PoolRuns + TestRuns;

    /// <summary>The ledger's sequence number when the step (first) started, and ended.</summary>
    public long StartSeq { get; private set; }

    public long EndSeq { get; set; }

    /// <summary>The ledger's clock when the step first started.</summary>
    public TimeSpan StartTime { get; private set; }

    public string? ThreadName { get; private set; }

    public int ThreadId { get; private set; }

    /// <summary>Whether the first run was on a thread of the built-in thread pool.</summary>
    public bool OnThreadPool { get; private set; }

    /// <summary>Whether the first run was the test's, of a handed-back item.</summary>
    public bool ByTest { get; private set; }

    /// <summary>The <see cref="ProgramRun.Local"/> value the step saw.</summary>
    public string? Local { get; private set; }

    /// <summary>The <see cref="ProgramRun.HookLocal"/> value the step saw.</summary>
    public string? HookLocal { get; private set; }

    /// <summary>For an async step: the ledger's sequence number just before its await (when it posts its continuation).</summary>
    public long AwaitSeq { get; set; }

    /// <summary>Where the second run was, if there was one (a double run).</summary>
    public string? SecondThreadName { get; private set; }

    /// <summary>Counts a run; true for the first, whose facts are kept.</summary>
    public bool Start(long seq, TimeSpan time, bool byTest, string? local, string? hookLocal)
    {
        int runs = byTest ? Interlocked.Increment(ref _testRuns) + PoolRuns : Interlocked.Increment(ref _poolRuns) + TestRuns;
        Thread thread = Thread.CurrentThread;
        if (runs != 1)
        {
            SecondThreadName ??= thread.Name ?? $"thread {thread.ManagedThreadId}";
            return false;
        }

        StartSeq = seq;
        StartTime = time;
        ThreadName = thread.Name;
        ThreadId = thread.ManagedThreadId;
        OnThreadPool = thread.IsThreadPoolThread;
        ByTest = byTest;
        Local = local;
        HookLocal = hookLocal;
        return true;
    }
}
