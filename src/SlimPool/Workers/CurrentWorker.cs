using SlimPool.Groups;

namespace SlimPool.Workers;

/// <summary>What the current thread is, if it is a worker: its pool, its blocking scopes and its slot. Set by the worker loop.</summary>
internal static class CurrentWorker
{
    /// <summary>The pool whose worker the current thread is, or null.</summary>
    public static SlimThreadPool? Pool => PoolThreadLocals.Current?.Pool;

    /// <summary>The current worker's blocking scopes, or null off every pool.</summary>
    public static WorkerBlockingState? Blocking => PoolThreadLocals.Current?.Blocking;

    /// <summary>
    /// The ExecutionContext the items of the pool whose workers <paramref name="workers"/> are start in when they flowed
    /// none, when the current thread is one of them: the thread's own after the start hook (a flow it left suppressed
    /// included); else null, and an item of that pool run here starts in <see cref="ThreadContexts.Clean"/> (another
    /// pool's hook set this thread's).
    /// </summary>
    public static ExecutionContext? CleanContextOf(WorkerSet workers) =>
        PoolThreadLocals.Current is { } locals && locals.Workers == workers ? locals.CleanContext : null;

    /// <summary>The current worker's slot state (its completed count), or null off every pool.</summary>
    public static WorkerState? State => PoolThreadLocals.Current?.State;

    /// <summary>The current worker's slot state if the current thread is one of the workers <paramref name="workers"/> are, else null.</summary>
    public static WorkerState? StateOf(WorkerSet workers) =>
        PoolThreadLocals.Current is { } locals && locals.Workers == workers ? locals.State : null;

    /// <summary>The current worker's slot state if the current thread is one of <paramref name="pool"/>'s workers, else null.</summary>
    public static WorkerState? StateOn(SlimThreadPool pool) => PoolThreadLocals.Current?.StateOn(pool);

    /// <summary>The group queues the current worker drops once it parks, or null off every pool.</summary>
    public static DeferredQueueDrops? QueueDrops => PoolThreadLocals.Current?.QueueDrops;

    /// <returns>The thread's locals, which the worker's loop keeps to read them without a thread-local lookup.</returns>
    public static PoolThreadLocals Enter(SlimThreadPool pool, WorkerSet workers, WorkerBlockingState blocking, WorkerState state, DeferredQueueDrops queueDrops)
    {
        PoolThreadLocals locals = PoolThreadLocals.GetOrCreate();
        locals.Pool = pool;
        locals.Workers = workers;
        locals.Blocking = blocking;
        locals.State = state;
        locals.QueueDrops = queueDrops;
        return locals;
    }

    /// <summary>The current worker has parked a while without work, or exits: it drops the group queues it kept.</summary>
    public static void DropKeptQueues() => PoolThreadLocals.Current?.QueueDrops?.DropAll();

    /// <summary>
    /// The current worker is parking: how many milliseconds of parking it still keeps its groups' queues for before it
    /// drops them (<see cref="DeferredQueueDrops.KeepMillisecondsAtPark"/>), within its park's timeout, which loses that
    /// much (a timeout of -1 is infinite and stays so); -1 when it keeps none.
    /// </summary>
    public static int QueueKeepMillisecondsAtPark(ref int millisecondsTimeout)
    {
        if (PoolThreadLocals.Current?.QueueDrops is not { IsEmpty: false } drops)
        {
            return -1;
        }

        int keep = drops.KeepMillisecondsAtPark();
        if (millisecondsTimeout >= 0)
        {
            keep = Math.Min(keep, millisecondsTimeout);
            millisecondsTimeout -= keep;
        }

        return keep;
    }

    public static void Leave()
    {
        if (PoolThreadLocals.Current is { } locals)
        {
            locals.Pool = null;
            locals.Workers = null;
            locals.Blocking = null;
            locals.State = null;
            locals.CleanContext = null;
            locals.QueueDrops = null;
            locals.OwnQueues = null;
        }
    }
}
