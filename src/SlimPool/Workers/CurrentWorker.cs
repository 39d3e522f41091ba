using SlimPool.Groups;

namespace SlimPool.Workers;

/// <summary>What the current thread is, if it is a worker: its pool, its blocking scopes and its slot. Set by the worker loop.</summary>
internal static class CurrentWorker
{
    [ThreadStatic]
    private static SlimThreadPool? t_pool;

    [ThreadStatic]
    private static WorkerBlockingState? t_blocking;

    [ThreadStatic]
    private static WorkerState? t_state;

    [ThreadStatic]
    private static ExecutionContext? t_cleanContext;

    [ThreadStatic]
    private static DeferredQueueDrops? t_queueDrops;

    /// <summary>The pool whose worker the current thread is, or null.</summary>
    public static SlimThreadPool? Pool => t_pool;

    /// <summary>The current worker's blocking scopes, or null off every pool.</summary>
    public static WorkerBlockingState? Blocking => t_blocking;

    /// <summary>
    /// The ExecutionContext the current worker runs items in when they flowed none (captured after its start hook), or
    /// null off every pool.
    /// </summary>
    public static ExecutionContext? CleanContext
    {
        get => t_cleanContext;
        set => t_cleanContext = value;
    }

    /// <summary>The current worker's slot state (its completed count), or null off every pool.</summary>
    public static WorkerState? State => t_state;

    /// <summary>The current worker's slot state if the current thread is one of <paramref name="pool"/>'s workers, else null.</summary>
    public static WorkerState? StateOn(SlimThreadPool pool) => t_pool == pool ? t_state : null;

    /// <summary>The group queues the current worker drops once it parks, or null off every pool.</summary>
    public static DeferredQueueDrops? QueueDrops => t_queueDrops;

    public static void Enter(SlimThreadPool pool, WorkerBlockingState blocking, WorkerState state, DeferredQueueDrops queueDrops)
    {
        t_pool = pool;
        t_blocking = blocking;
        t_state = state;
        t_queueDrops = queueDrops;
    }

    /// <summary>The current worker has parked a while without work, or exits: it drops the group queues it kept.</summary>
    public static void DropKeptQueues() => t_queueDrops?.DropAll();

    /// <summary>
    /// The current worker is parking: how many milliseconds of parking it still keeps its groups' queues for before it
    /// drops them (<see cref="DeferredQueueDrops.KeepMillisecondsAtPark"/>), within its park's timeout, which loses that
    /// much (a timeout of -1 is infinite and stays so); -1 when it keeps none.
    /// </summary>
    public static int QueueKeepMillisecondsAtPark(ref int millisecondsTimeout)
    {
        if (t_queueDrops is not { IsEmpty: false } drops)
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
        t_pool = null;
        t_blocking = null;
        t_state = null;
        t_cleanContext = null;
        t_queueDrops = null;
    }
}
