using System.Reactive.Concurrency;
using SlimPool.Queues;

namespace SlimPool.Reactive;

/// <summary>
/// One scheduled action: the pool item that runs it and the <see cref="IDisposable"/> handed to the caller, in one
/// object.
/// </summary>
/// <remarks>
/// <c>_result</c> is the whole state: null while the action has not run, the action's result once it has, or
/// <see cref="DisposedSentinel"/> once the caller disposed. Each side swaps it with one interlocked operation, so an
/// action that returns while the caller disposes has its result disposed by whichever side comes second.
/// </remarks>
internal class ScheduledItem<TState> : IWorkItem, INamedWorkItem, IDisposable
{
    private readonly SlimPoolScheduler _scheduler;
    private TState _state;
    private Func<IScheduler, TState, IDisposable>? _action;
    private IDisposable? _result;

    public ScheduledItem(SlimPoolScheduler scheduler, TState state, Func<IScheduler, TState, IDisposable> action)
    {
        _scheduler = scheduler;
        _state = state;
        _action = action;
    }

    protected SlimPoolScheduler Scheduler => _scheduler;

    /// <summary>The action and its state, for the pool's slow-item watch: it names the user's delegate, not this type.</summary>
    (object? Callback, object? State) INamedWorkItem.NameParts => (Volatile.Read(ref _action), _state);

    protected bool IsDisposed => Volatile.Read(ref _result) is DisposedSentinel;

    /// <summary>Runs the action on the pool, unless the caller disposed first. Queued once, so runs once.</summary>
    public void Execute()
    {
        Func<IScheduler, TState, IDisposable>? action = _action;
        TState state = _state;
        if (action is null || IsDisposed)
        {
            _action = null;
            _state = default!;
            return;
        }

        IDisposable result;
        try
        {
            result = action(_scheduler, state);
        }
        finally
        {
            _action = null;      // what the action holds is released as soon as it is done with (kept while it runs: NameParts)
            _state = default!;
        }

        if (Interlocked.CompareExchange(ref _result, result, null) is not null)
        {
            result.Dispose(); // the caller disposed while the action ran
        }
    }

    public virtual void Dispose()
    {
        IDisposable? previous = Interlocked.Exchange(ref _result, DisposedSentinel.Instance);
        if (previous is not null and not DisposedSentinel)
        {
            previous.Dispose();
        }
    }
}
