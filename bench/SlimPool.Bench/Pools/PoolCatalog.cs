namespace SlimPool.Bench.Pools;

/// <summary>Every pool the comparison program can run, in one place, in display order.</summary>
internal static class PoolCatalog
{
    public const string BaselineName = "ThreadPool";

    public static IReadOnlyList<PoolDefinition> All { get; } =
    [
        new(BaselineName, "System.Threading.ThreadPool via QueueUserWorkItem (flows ExecutionContext)", _ => new ManagedThreadPool()),
        new("ThreadPool-unsafe", "System.Threading.ThreadPool via UnsafeQueueUserWorkItem", _ => new ManagedThreadPool(flowExecutionContext: false)),
        new("Locked+ARE", "SlimPool, Locked queue + AutoResetEvent idle wait (the seed's qless)", w => Slim(w, WorkQueueKind.Locked, IdleWaitKind.AutoResetEvent)),
        new("LockFree+ARE", "SlimPool, LockFree queue + AutoResetEvent idle wait (the seed's slimqless2)", w => Slim(w, WorkQueueKind.LockFree, IdleWaitKind.AutoResetEvent)),
        new("SlimPool", "SlimPool default options", w => new SlimThreadPool(new SlimThreadPoolOptions { WorkerCount = w ?? Environment.ProcessorCount })),
        new("Locked+Spin", "SlimPool, Locked queue + SpinThenPark", w => Slim(w, WorkQueueKind.Locked, IdleWaitKind.SpinThenPark), IsDefault: false),
        new("LockFree+Spin", "SlimPool, LockFree queue + SpinThenPark", w => Slim(w, WorkQueueKind.LockFree, IdleWaitKind.SpinThenPark), IsDefault: false),
        new("Stealing+ARE", "SlimPool, WorkStealing queue + AutoResetEvent", w => Slim(w, WorkQueueKind.WorkStealing, IdleWaitKind.AutoResetEvent), IsDefault: false),
        new("Stealing+Spin", "SlimPool, WorkStealing queue + SpinThenPark", w => Slim(w, WorkQueueKind.WorkStealing, IdleWaitKind.SpinThenPark), IsDefault: false),
        new("CQ+Spin", "SlimPool, a user queue over ConcurrentQueue<T> + SpinThenPark (the yardstick for LockFree)", w => new SlimThreadPool(new SlimThreadPoolOptions
        {
            WorkerCount = w ?? Environment.ProcessorCount,
            QueueFactory = static () => new ConcurrentQueueWorkQueue(),
        }), IsDefault: false),
    ];

    /// <summary>The pools a run uses: the defaults, every pool for "all", or the names given.</summary>
    public static IReadOnlyList<PoolDefinition> Select(IReadOnlyList<string>? names)
    {
        if (names is null || names.Count == 0)
        {
            return All.Where(p => p.IsDefault).ToArray();
        }

        if (names.Count == 1 && names[0].Equals("all", StringComparison.OrdinalIgnoreCase))
        {
            return All;
        }

        var selected = new List<PoolDefinition>();
        foreach (string name in names)
        {
            PoolDefinition pool = All.FirstOrDefault(p => p.Name.Equals(name, StringComparison.OrdinalIgnoreCase))
                ?? throw new ArgumentException($"unknown pool '{name}'; known pools: {string.Join(", ", All.Select(p => p.Name))}, all");
            selected.Add(pool);
        }

        return selected;
    }

    // The seed configurations (…+ARE) stay the seed's design: fixed workers, no starvation guard.
    private static SlimThreadPool Slim(int? workers, WorkQueueKind queue, IdleWaitKind idleWait) =>
        new(new SlimThreadPoolOptions
        {
            WorkerCount = workers ?? Environment.ProcessorCount,
            Queue = queue,
            IdleWait = idleWait,
            StarvationTimeout = idleWait == IdleWaitKind.AutoResetEvent ? Timeout.InfiniteTimeSpan : TimeSpan.FromMilliseconds(50),
        });
}
