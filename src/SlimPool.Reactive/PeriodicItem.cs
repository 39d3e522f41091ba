using SlimPool.Queues;

namespace SlimPool.Reactive;

/// <summary>
/// A periodic action: one timer for its life, re-armed after each tick, each tick one pool item.
/// </summary>
/// <remarks>
/// <para>Why ticks cannot overlap: the periodic holds a single turn, which is in exactly one place at a time: the
/// timer is armed, or one tick is queued on the pool, or one tick runs. The timer fires once per arming (it is never
/// periodic itself) and queues the tick; only the tick, when it returns, arms the timer again or queues the next. So a
/// tick that runs longer than the period delays the next one instead of running beside it, and the state passes from
/// one tick to the next through <c>_gate</c>, which orders each tick's writes before the next tick's reads.</para>
/// <para>Due times are fixed (start + n × period, <c>_next</c> measured from <c>_start</c> on the provider's
/// monotonic clock). A tick that ends after the next due time makes that next tick due now, and the ones after follow
/// from there: a late periodic catches up by one tick, never by a burst.</para>
/// </remarks>
internal sealed class PeriodicItem<TState> : IWorkItem, IDisposable, INamedWorkItem
{
    private static readonly TimerCallback s_due = static item => ((PeriodicItem<TState>)item!).OnDue();

    private readonly SlimPoolScheduler _scheduler;
    private readonly TimeSpan _period;
    private readonly Func<TState, TState> _action;
    private readonly Lock _gate = new();
    private TState _state;
    private ITimer? _timer;  // null with a zero period
    private long _start;     // the provider's timestamp at Start
    private TimeSpan _next;  // the next tick's due time, from _start
    private bool _stopped;   // disposed, refused by the pool, or its action threw
    private ExecutionContext? _context; // the caller's at Start (CaptureDueContext): every tick runs in it, whichever thread queues it

    public PeriodicItem(SlimPoolScheduler scheduler, TState state, TimeSpan period, Func<TState, TState> action)
    {
        _scheduler = scheduler;
        _state = state;
        _period = period;
        _action = action;
    }

    public void Start()
    {
        TimeProvider time = _scheduler.TimeProvider;
        _context = _scheduler.CaptureDueContext();
        _start = time.GetTimestamp();
        _next = _period;
        if (_period == TimeSpan.Zero)
        {
            _scheduler.Pool.Queue(this); // throws if the pool no longer accepts work: the caller hears of it
            return;
        }

        lock (_gate)
        {
            // Created under the gate: a first tick due at once waits in OnDue until _timer is set.
            _timer = time.CreateTimer(s_due, this, TimerDue.Clamp(_period), Timeout.InfiniteTimeSpan);
        }
    }

    /// <summary>One tick, on the pool.</summary>
    public void Execute()
    {
        TState state;
        lock (_gate)
        {
            if (_stopped)
            {
                return;
            }

            state = _state;
        }

        bool returned = false;
        try
        {
            state = _action(state);
            returned = true;
        }
        finally
        {
            if (returned)
            {
                Next(state);
            }
            else
            {
                Stop(); // the exception goes on to the pool's handler; the periodic ends with it
            }
        }
    }

    public void Dispose() => Stop();

    /// <summary>The tick and its state, for the pool's slow-item watch: it names the user's delegate, not this type.</summary>
    (object? Callback, object? State) INamedWorkItem.NameParts => (_action, _state);

    // After a tick returned: keep its state, then arm the timer for the next due time, or queue the next tick if it is
    // already due.
    private void Next(TState state)
    {
        lock (_gate)
        {
            if (_stopped)
            {
                return;
            }

            _state = state;

            TimeSpan now = _scheduler.TimeProvider.GetElapsedTime(_start);
            _next += _period;
            if (_next < now)
            {
                _next = now;
            }

            TimeSpan wait = _next - now;
            if (wait > TimeSpan.Zero)
            {
                _timer!.Change(TimerDue.Clamp(wait), Timeout.InfiniteTimeSpan);
                return;
            }
        }

        QueueTick();
    }

    // On the timer's thread. Nothing here may throw: there is no caller to throw to.
    private void OnDue()
    {
        lock (_gate)
        {
            if (_stopped)
            {
                return;
            }

            TimeSpan left = _next - _scheduler.TimeProvider.GetElapsedTime(_start);
            if (left > TimeSpan.Zero && _period > TimerDue.Max)
            {
                // A period longer than one timer takes: re-arm for what is left.
                _timer!.Change(TimerDue.Clamp(left), Timeout.InfiniteTimeSpan);
                return;
            }
        }

        QueueTick();
    }

    // Queued with the caller's context, as a timer queues it (the timer flows the context it was made in): a late tick
    // that queues the next one itself must not hand it its own context (the values the tick's action set).
    private void QueueTick()
    {
        if (!_scheduler.TryQueueDue(this, _context))
        {
            Stop(); // the pool no longer accepts work: no tick can run again
        }
    }

    private void Stop()
    {
        lock (_gate)
        {
            _stopped = true;
            _state = default!;
            _timer?.Dispose();
            _timer = null;
        }
    }
}
