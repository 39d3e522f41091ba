using SlimPool.Bench.Work;

namespace SlimPool.Bench.Pools;

/// <summary>
/// The reference: <see cref="ThreadPool"/> called directly through its fastest public API,
/// <see cref="ThreadPool.UnsafeQueueUserWorkItem(IThreadPoolWorkItem, bool)"/> (no ExecutionContext capture, no
/// allocation per item), with <c>preferLocal: true</c> from pool threads; <see cref="Task.Run(Func{Task})"/> for
/// async flows.
/// </summary>
internal readonly struct BuiltInPool : IBenchPool
{
    public int ThreadCount => ThreadPool.ThreadCount;

    public void Queue(BenchWorkItem item) => ThreadPool.UnsafeQueueUserWorkItem(item, preferLocal: false);

    // No batch form: one call an item, as a user of the built-in pool writes it.
    public void QueueBatch(BenchWorkItem[] items)
    {
        foreach (BenchWorkItem item in items)
        {
            ThreadPool.UnsafeQueueUserWorkItem(item, preferLocal: false);
        }
    }

    public void QueueFromPool(BenchWorkItem item) => ThreadPool.UnsafeQueueUserWorkItem(item, preferLocal: true);

    public Task Run(Func<Task> flow) => Task.Run(flow);

    public void RunBlocking(Action action) => action();

    public ISerialQueue CreateSerialQueue() => new MailboxSerialQueue<BuiltInPool>(this);

    /// <summary>
    /// Caps the built-in pool for a scenario that caps both sides. Process-wide, which is why every measured
    /// repetition runs in its own process by default.
    /// </summary>
    public static void Apply(PoolSetup setup)
    {
        if (setup.MaxThreads is int max)
        {
            ThreadPool.GetMinThreads(out int minWorkers, out int minIo);
            int min = setup.FixedThreads ? max : Math.Min(minWorkers, max);
            // Lower the minimum first: SetMaxThreads refuses a maximum below the current minimum.
            if (!ThreadPool.SetMinThreads(Math.Min(min, minWorkers), Math.Min(minIo, max))
                || !ThreadPool.SetMaxThreads(max, Math.Max(max, minIo))
                || !ThreadPool.SetMinThreads(min, Math.Min(minIo, max)))
            {
                throw new InvalidOperationException($"could not cap the built-in pool at {max} threads");
            }
        }
    }
}
