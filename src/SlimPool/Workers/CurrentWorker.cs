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

    public static void Enter(SlimThreadPool pool, WorkerBlockingState blocking, WorkerState state)
    {
        t_pool = pool;
        t_blocking = blocking;
        t_state = state;
    }

    public static void Leave()
    {
        t_pool = null;
        t_blocking = null;
        t_state = null;
        t_cleanContext = null;
    }
}
