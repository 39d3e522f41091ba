using SlimPool.Bench.Actors;

namespace SlimPool.Bench.Pools;

/// <summary>Every pool the comparison program can run, in one place, in display order.</summary>
internal static class PoolCatalog
{
    public const string ReferenceName = "ThreadPool";

    /// <summary>Akka's ForkJoinDispatcher (an extra row of akka-pingpong).</summary>
    public const string AkkaForkJoinName = "Akka ForkJoin";

    /// <summary>Akka's channel executor (an extra row of akka-pingpong).</summary>
    public const string AkkaChannelName = "Akka channel";

    /// <summary>Proto.Actor's ThreadPoolDispatcher (an extra row of proto-pingpong).</summary>
    public const string ProtoThreadPoolName = "Proto ThreadPoolDispatcher";

    public static IReadOnlyList<PoolDefinition> All { get; } =
    [
        new PoolDefinition.BuiltIn(ReferenceName, "System.Threading.ThreadPool at its best: UnsafeQueueUserWorkItem(IThreadPoolWorkItem, preferLocal), Task.Run; the reference"),
        new PoolDefinition.Slim("SlimPool", "SlimPool, default options (work-stealing queue, spin-then-park)", Options, isDefault: true),
        new PoolDefinition.Adapter("ThreadPool via IThreadPool", "the seed's view: ManagedThreadPool (QueueUserWorkItem, flows ExecutionContext); not a reference", _ => new ManagedThreadPool()),
        new PoolDefinition.Slim("Locked+ARE", "SlimPool, Locked queue + AutoResetEvent idle wait (the seed's qless)", s => Options(s, WorkQueueKind.Locked, IdleWaitKind.AutoResetEvent)),
        new PoolDefinition.Slim("LockFree+ARE", "SlimPool, LockFree queue + AutoResetEvent idle wait (the seed's slimqless2)", s => Options(s, WorkQueueKind.LockFree, IdleWaitKind.AutoResetEvent)),
        new PoolDefinition.Slim("LockFree+Spin", "SlimPool, LockFree queue + SpinThenPark", s => Options(s, WorkQueueKind.LockFree, IdleWaitKind.SpinThenPark)),
        new PoolDefinition.Slim("CQ+Spin", "SlimPool, a user queue over ConcurrentQueue<T> + SpinThenPark (the yardstick for LockFree)", s =>
        {
            SlimThreadPoolOptions options = Options(s);
            options.QueueFactory = static () => new ConcurrentQueueWorkQueue();
            return options;
        }),
        new PoolDefinition.Adapter("Naive", "one Queue<T> under one lock, N threads, Monitor.Wait/Pulse (seed 003's baseline)", s => new NaiveThreadPool(s.Workers ?? Environment.ProcessorCount)),
        new PoolDefinition.AkkaExecutor(AkkaForkJoinName, "Akka.NET's ForkJoinDispatcher: a dedicated thread pool, one thread per core (Akka scenarios only)", () => AkkaExecutors.ForkJoin),
        new PoolDefinition.AkkaExecutor(AkkaChannelName, "Akka.NET's channel-executor: a Channels-based TaskScheduler on the built-in pool (Akka scenarios only)", () => AkkaExecutors.Channel),
        new PoolDefinition.ProtoDispatcher(ProtoThreadPoolName, "Proto.Actor's ThreadPoolDispatcher: Task.Factory.StartNew on the built-in pool per mailbox run (Proto scenarios only)", ProtoDispatchers.ThreadPool),
    ];

    public static PoolDefinition Reference => All[0];

    /// <summary>The pools a run uses: the defaults, every pool for "all", or the names given; the reference always first.</summary>
    public static IReadOnlyList<PoolDefinition> Select(IReadOnlyList<string>? names)
    {
        if (names is null || names.Count == 0)
        {
            return [.. All.Where(p => p.IsDefault)];
        }

        if (names.Count == 1 && names[0].Equals("all", StringComparison.OrdinalIgnoreCase))
        {
            return All;
        }

        var chosen = new List<PoolDefinition> { Reference };
        foreach (string name in names)
        {
            PoolDefinition pool = Find(name) ?? throw new ArgumentException($"unknown pool '{name}'; known pools: {string.Join(", ", All.Select(p => p.Name))}, all");
            if (!chosen.Contains(pool))
            {
                chosen.Add(pool);
            }
        }

        return chosen;
    }

    public static PoolDefinition? Find(string name) => All.FirstOrDefault(p => p.Name.Equals(name, StringComparison.OrdinalIgnoreCase));

    private static SlimThreadPoolOptions Options(PoolSetup setup) => new()
    {
        WorkerCount = setup.Workers ?? Math.Min(Environment.ProcessorCount, setup.MaxThreads ?? int.MaxValue),
        MaxWorkers = setup.MaxThreads,
    };

    private static SlimThreadPoolOptions Options(PoolSetup setup, WorkQueueKind queue, IdleWaitKind idleWait)
    {
        SlimThreadPoolOptions options = Options(setup);
        options.Queue = queue;
        options.IdleWait = idleWait;
        return options;
    }
}
