namespace SlimPool.Queues;

/// <summary>
/// The entries of one batch, read by index while a queue writes them into its cells: a queue copies each entry once,
/// straight from the caller's span.
/// </summary>
internal interface IBatchSource
{
    /// <summary>The number of entries.</summary>
    int Count { get; }

    /// <summary>Entry <paramref name="index"/>.</summary>
    QueuedWorkItem At(int index);
}
