namespace SlimPool.Workers;

/// <summary>
/// A worker thread's own name and priority, put back after every item that changed them, as the built-in pool puts
/// back its threads' after each work item: the next item, a group's included, sees the worker as the pool made it.
/// </summary>
/// <remarks>Made by the worker's loop and used only on its thread (through <see cref="PoolThreadLocals"/>).</remarks>
internal sealed class WorkerThreadIdentity(Thread thread, ThreadPriority priority)
{
    private readonly string _name = thread.Name!;

    /// <summary>Puts the worker's name and priority back if an item changed them: a reference comparison and a field read when none did.</summary>
    public void Restore()
    {
        if (!ReferenceEquals(thread.Name, _name))
        {
            thread.Name = _name;
        }

        if (thread.Priority != priority)
        {
            thread.Priority = priority;
        }
    }
}
