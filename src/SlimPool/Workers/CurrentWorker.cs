namespace SlimPool.Workers;

/// <summary>What the current thread is, if it is a worker: its pool and its blocking scopes. Set by the worker loop.</summary>
internal static class CurrentWorker
{
    [ThreadStatic]
    private static SlimThreadPool? t_pool;

    [ThreadStatic]
    private static WorkerBlockingState? t_blocking;

    /// <summary>The pool whose worker the current thread is, or null.</summary>
    public static SlimThreadPool? Pool => t_pool;

    /// <summary>The current worker's blocking scopes, or null off every pool.</summary>
    public static WorkerBlockingState? Blocking => t_blocking;

    public static void Enter(SlimThreadPool pool, WorkerBlockingState blocking)
    {
        t_pool = pool;
        t_blocking = blocking;
    }

    public static void Leave()
    {
        t_pool = null;
        t_blocking = null;
    }
}
