using System.Runtime.CompilerServices;

namespace SlimPool.Queues;

/// <summary>
/// One queued work item as an <see cref="IWorkQueue"/> stores it: a struct of three references (callback,
/// state, captured <see cref="ExecutionContext"/>), so queueing allocates nothing beyond the queue's own,
/// reused storage.
/// </summary>
/// <remarks>
/// The contents are opaque: a queue only stores and returns entries. <see langword="default"/> is an empty
/// entry that a pool never enqueues.
/// </remarks>
public readonly struct QueuedWorkItem
{
    // _callback is exactly one of: Action<object?> (with _state), Action, SendOrPostCallback (with _state, from
    // the pool's SynchronizationContext), another Action<T> with a reference-type T (with _state, a T: Queue<TState>),
    // or IWorkItem. The three delegate types are sealed, so exact type tests tell them apart without an interface
    // cast, and no wrapper is allocated for any of them. An IThreadPoolWorkItem travels as the state of
    // NativeWorkItems.ExecuteThreadPoolWorkItem, an Action<object?>.
    private readonly object? _callback;
    private readonly object? _state;
    private readonly ExecutionContext? _context;

    internal QueuedWorkItem(object callback, object? state, ExecutionContext? context)
    {
        _callback = callback;
        _state = state;
        _context = context;
    }

    /// <summary>Whether this is the empty <see langword="default"/> entry.</summary>
    public bool IsEmpty => _callback is null;

    /// <summary>The callback object as stored: the user's, or one of the pool's own wrappers.</summary>
    internal object StoredCallback => _callback!;

    /// <summary>The state as stored, beside <see cref="StoredCallback"/>.</summary>
    internal object? StoredState => _state;

    /// <summary>The callback as the user queued it, looking through the pool's own wrappers.</summary>
    internal object UserCallback => _callback switch
    {
        IWrappedWorkItem wrapped => wrapped.Callback,
        _ when ReferenceEquals(_callback, NativeWorkItems.ExecuteThreadPoolWorkItem) => _state!,
        _ => _callback!,
    };

    /// <summary>The state as the user queued it, looking through the pool's own wrappers.</summary>
    internal object? UserState => _callback switch
    {
        IWrappedWorkItem wrapped => wrapped.State,
        _ when ReferenceEquals(_callback, NativeWorkItems.ExecuteThreadPoolWorkItem) => null,
        _ => _state,
    };

    /// <summary>The ExecutionContext captured when the item was queued, or <see langword="null"/> when none flows.</summary>
    internal ExecutionContext? Context => _context;

    /// <summary>
    /// Runs the item for a caller it was handed back to: as <see cref="Invoke"/>, but the pool's wrappers record nothing
    /// (<see cref="IWrappedWorkItem.ExecuteHandedBack"/>).
    /// </summary>
    internal void InvokeHandedBack()
    {
        if (_callback is IWrappedWorkItem wrapped)
        {
            wrapped.ExecuteHandedBack();
            return;
        }

        Invoke();
    }

    /// <summary>Runs the item's callback on the current thread; exceptions propagate to the caller.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    internal void Invoke()
    {
        object? callback = _callback;
        if (callback!.GetType() == typeof(Action<object?>))
        {
            Unsafe.As<Action<object?>>(callback)(_state);
        }
        else if (callback.GetType() == typeof(Action))
        {
            Unsafe.As<Action>(callback)();
        }
        else if (callback.GetType() == typeof(SendOrPostCallback))
        {
            Unsafe.As<SendOrPostCallback>(callback)(_state);
        }
        else if (callback is Delegate)
        {
            // An Action<T> with a reference-type T (NativeWorkItems.ForState): its Invoke takes one reference, like
            // Action<object?>'s, and _state is a T, so the call is the one the user's Action<T> expects.
            Unsafe.As<Action<object?>>(callback)(_state);
        }
        else
        {
            Unsafe.As<IWorkItem>(callback).Execute();
        }
    }
}
