namespace SlimPool.Queues;

/// <summary>A batch of one callback over many states, all with one ExecutionContext: entry <c>i</c> runs <c>callback(states[i])</c>.</summary>
internal readonly ref struct StateBatch : IBatchSource
{
    private readonly Action<object?> _callback;
    private readonly ReadOnlySpan<object?> _states;
    private readonly ExecutionContext? _context;

    public StateBatch(Action<object?> callback, ReadOnlySpan<object?> states, ExecutionContext? context)
    {
        _callback = callback;
        _states = states;
        _context = context;
    }

    public int Count => _states.Length;

    public QueuedWorkItem At(int index) => new(_callback, _states[index], _context);

    public bool CopyTo(int start, Span<object?> callbacks, Span<object?> states, Span<object?> contexts)
    {
        callbacks.Fill(_callback);
        _states.Slice(start, states.Length).CopyTo(states); // a null state copies as the null the free cell holds
        if (_context is not null)
        {
            contexts.Fill(_context);
        }

        return true; // the states, null or not, are not looked at one by one
    }
}
