namespace SlimPool.Tests.Infrastructure;

/// <summary>
/// An item that leaves an interrupt pending as it returns, as a watchdog's late one does: only on one of its pool's
/// workers. An item a shutdown runs itself may run on a built-in pool thread (the shutdown task's continuation), where an
/// interrupt left behind would meet whatever test runs there next.
/// </summary>
internal static class WorkerInterrupts
{
    /// <summary>Interrupts the current thread if it is one of <paramref name="pool"/>'s workers (named "{pool} #n").</summary>
    public static void LeaveOnWorker(SlimThreadPool pool)
    {
        if (Thread.CurrentThread.Name?.StartsWith(pool.Name + " #", StringComparison.Ordinal) == true)
        {
            Thread.CurrentThread.Interrupt();
        }
    }
}
