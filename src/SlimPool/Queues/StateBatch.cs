namespace SlimPool.Queues;

/// <summary>A batch of one callback over many states: item <c>i</c> runs <c>callback(states[i])</c>.</summary>
internal readonly ref struct StateBatch : IBatchSource
{
    private readonly Action<object?> _callback;
    private readonly ReadOnlySpan<object?> _states;

    public StateBatch(Action<object?> callback, ReadOnlySpan<object?> states)
    {
        _callback = callback;
        _states = states;
    }

    public int Count => _states.Length;

    public object CallbackAt(int index) => _callback;

    public object? StateAt(int index) => _states[index];
}
