namespace SlimPool.Queues;

/// <summary>
/// Carries an <see cref="Action{T}"/> and a value-type state (<c>Queue&lt;TState&gt;</c>): a queue entry holds
/// references only, so a struct state needs an object. One spare per thread and state type is kept: an item that
/// queues its successor from a worker (the common case for <c>preferLocal</c>) reuses the object it runs in, and such
/// a chain allocates nothing after its first step.
/// </summary>
/// <remarks>The spare is the running thread's alone ([ThreadStatic]): an object is rented by the thread that queues it
/// and returned by the thread that runs it, and it is never in the queue and in a spare slot at once (it is returned
/// only after its fields were copied out, before its callback runs).</remarks>
internal sealed class StateWorkItem<TState> : IReusedWorkItem
{
    [ThreadStatic]
    private static StateWorkItem<TState>? t_spare;

    private Action<TState>? _callback;
    private TState? _state;

    private StateWorkItem()
    {
    }

    public object Callback => _callback!;

    public object? State => _state;

    public static StateWorkItem<TState> Rent(Action<TState> callback, TState state)
    {
        StateWorkItem<TState> item = t_spare ?? new StateWorkItem<TState>();
        t_spare = null;
        item._callback = callback;
        item._state = state;
        return item;
    }

    public void ExecuteHandedBack() => Execute();

    public void Execute()
    {
        Action<TState> callback = _callback!;
        TState state = _state!;
        _callback = null;
        _state = default;
        t_spare = this;
        callback(state);
    }
}
