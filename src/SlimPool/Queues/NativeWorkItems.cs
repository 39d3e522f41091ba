using System.Runtime.CompilerServices;

namespace SlimPool.Queues;

/// <summary>
/// How the built-in pool's item shapes (<see cref="IThreadPoolWorkItem"/>, <c>Action&lt;TState&gt;</c> with a state)
/// become a queue entry's (callback, state) pair without a wrapper object.
/// </summary>
internal static class NativeWorkItems
{
    /// <summary>The callback stored for an <see cref="IThreadPoolWorkItem"/>, which travels as the state.</summary>
    public static readonly Action<object?> ExecuteThreadPoolWorkItem = static item => Unsafe.As<IThreadPoolWorkItem>(item!).Execute();

    /// <summary>
    /// The entry for <paramref name="callback"/> and <paramref name="state"/>. A reference-type state is stored as it
    /// is, with the <see cref="Action{T}"/> itself as the callback (<see cref="QueuedWorkItem"/> calls it through
    /// <see cref="Action{T}"/> of <see cref="object"/>: same signature for every reference type). A value-type state
    /// goes into a <see cref="StateWorkItem{TState}"/>.
    /// </summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static (object Callback, object? State) ForState<TState>(Action<TState> callback, TState state)
    {
        if (typeof(TState).IsValueType)
        {
            return (StateWorkItem<TState>.Rent(callback, state), null);
        }

        // An Action<object?> is stored the same way and dispatched by its exact type, first.
        return (callback, state);
    }
}
