namespace SlimPool.Queues;

/// <summary>A batch of entries already made (tests, and a batch whose items a queue-wait sample stamped).</summary>
internal readonly ref struct EntryBatch : IBatchSource
{
    private readonly ReadOnlySpan<QueuedWorkItem> _entries;

    public EntryBatch(ReadOnlySpan<QueuedWorkItem> entries) => _entries = entries;

    public int Count => _entries.Length;

    public QueuedWorkItem At(int index) => _entries[index];

    public bool CopyTo(int start, Span<object?> callbacks, Span<object?> states, Span<object?> contexts)
    {
        bool extras = false;
        for (int i = 0; i < callbacks.Length; i++)
        {
            QueuedWorkItem entry = _entries[start + i];
            callbacks[i] = entry.StoredCallback;
            if (entry.StoredState is { } state)
            {
                states[i] = state;
                extras = true;
            }

            if (entry.Context is { } context)
            {
                contexts[i] = context;
                extras = true;
            }
        }

        return extras;
    }
}
