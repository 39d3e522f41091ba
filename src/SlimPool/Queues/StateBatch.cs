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
}
