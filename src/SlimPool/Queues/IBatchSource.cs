namespace SlimPool.Queues;

/// <summary>The items of one <c>QueueBatch</c> call, read by index while the pool copies them into its queue.</summary>
internal interface IBatchSource
{
    /// <summary>The number of items.</summary>
    int Count { get; }

    /// <summary>What the pool invokes for item <paramref name="index"/>: a delegate or an <see cref="IWorkItem"/>.</summary>
    object CallbackAt(int index);

    /// <summary>The state passed to item <paramref name="index"/>'s callback.</summary>
    object? StateAt(int index);
}
