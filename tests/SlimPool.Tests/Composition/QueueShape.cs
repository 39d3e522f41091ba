namespace SlimPool.Tests.Composition;

/// <summary>Which overload queues a plain item: a delegate with state or an <see cref="IWorkItem"/>, throwing or trying.</summary>
internal enum QueueShape
{
    /// <summary><c>Queue(Action&lt;object?&gt;, state[, priority | token])</c>.</summary>
    Queue,

    /// <summary><c>TryQueue(Action&lt;object?&gt;, state[, priority | token])</c>.</summary>
    TryQueue,

    /// <summary><c>Queue(IWorkItem[, priority | token])</c>.</summary>
    QueueWorkItem,

    /// <summary><c>TryQueue(IWorkItem[, priority | token])</c>.</summary>
    TryQueueWorkItem,
}
