namespace SlimPool.Micro;

/// <summary>Which <see cref="IThreadPool"/> overload a benchmark queues its items through.</summary>
public enum QueueOverload
{
    /// <summary><see cref="IThreadPool.Queue(Action{object?}, object?)"/> with a cached static delegate and a shared state object.</summary>
    State,

    /// <summary><see cref="IThreadPool.Queue(IWorkItem)"/> with one reusable work item queued over and over.</summary>
    WorkItem,
}
