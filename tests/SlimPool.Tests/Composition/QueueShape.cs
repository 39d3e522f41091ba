namespace SlimPool.Tests.Composition;

/// <summary>Which overload queues a plain item: a delegate with state or an <see cref="IWorkItem"/>, alone or in a batch, throwing or trying.</summary>
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

    /// <summary>
    /// <c>QueueBatch(Action&lt;object?&gt;, states)</c> on the pool or a group: a producer's consecutive batch items for one
    /// target go in one call (plain items at Normal priority; any other item queued this way falls back to <see cref="Queue"/>).
    /// </summary>
    Batch,

    /// <summary><c>TryQueueBatch(Action&lt;object?&gt;, states)</c>, as <see cref="Batch"/>.</summary>
    TryBatch,

    /// <summary><c>QueueAsync</c> (the pool's or a group's), the producer waiting for its task: room in a bounded pool.</summary>
    QueueAsync,
}
