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

    /// <summary>
    /// Writes entries <paramref name="start"/> on, one per element of the three spans (of equal length), into free
    /// cells: callbacks into <paramref name="callbacks"/>, states into <paramref name="states"/>, contexts into
    /// <paramref name="contexts"/>. A free cell holds null, so a null state or context is not written. A run of
    /// references is copied in bulk where the batch has one: one card-marking pass instead of a write barrier an entry.
    /// </summary>
    /// <returns>Whether a state or a context may have been written (true is always safe: the queue then reads both
    /// regions of the ring).</returns>
    bool CopyTo(int start, Span<object?> callbacks, Span<object?> states, Span<object?> contexts);
}
