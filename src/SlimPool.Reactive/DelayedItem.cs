using System.Reactive.Concurrency;

namespace SlimPool.Reactive;

/// <summary>A scheduled action with a due time: a one-shot timer queues it to the pool when due.</summary>
/// <remarks>
/// The timer is stored after it is created, and the caller may dispose in between (or the timer may even fire first):
/// <see cref="Start"/> stores, then looks for a disposal; <see cref="Dispose"/> marks, then takes the timer. Both are
/// interlocked, so at least one of them sees the other and the timer is disposed exactly once.
/// </remarks>
internal sealed class DelayedItem<TState> : ScheduledItem<TState>
{
    private static readonly TimerCallback s_due = static item => ((DelayedItem<TState>)item!).OnDue();

    private ITimer? _timer;
    private long _start;  // the provider's timestamp at Start
    private TimeSpan _due; // from _start
    private ExecutionContext? _context; // the caller's at Start (CaptureDueContext): the action runs in it, not the timer's

    public DelayedItem(SlimPoolScheduler scheduler, TState state, Func<IScheduler, TState, IDisposable> action)
        : base(scheduler, state, action)
    {
    }

    public void Start(TimeSpan dueTime)
    {
        TimeProvider time = Scheduler.TimeProvider;
        _context = Scheduler.CaptureDueContext();
        _start = time.GetTimestamp();
        _due = dueTime;
        ITimer timer = time.CreateTimer(s_due, this, TimerDue.Clamp(dueTime), Timeout.InfiniteTimeSpan);
        Interlocked.Exchange(ref _timer, timer);
        if (IsDisposed)
        {
            Interlocked.Exchange(ref _timer, null)?.Dispose();
        }
    }

    public override void Dispose()
    {
        base.Dispose();
        Interlocked.Exchange(ref _timer, null)?.Dispose();
    }

    // On the timer's thread: hand the action to the pool. Nothing here may throw (there is no caller to throw to).
    private void OnDue()
    {
        if (IsDisposed)
        {
            return;
        }

        if (_due > TimerDue.Max)
        {
            // A wait longer than one timer takes: re-arm for what is left, if anything.
            TimeSpan left = _due - Scheduler.TimeProvider.GetElapsedTime(_start);
            if (left > TimeSpan.Zero && Volatile.Read(ref _timer) is { } timer)
            {
                try
                {
                    timer.Change(TimerDue.Clamp(left), Timeout.InfiniteTimeSpan);
                }
                catch (ObjectDisposedException)
                {
                    // The caller disposed meanwhile: nothing is due any more.
                }

                return;
            }
        }

        Interlocked.Exchange(ref _timer, null)?.Dispose();
        Scheduler.TryQueueDue(this, _context); // refused: counted by the scheduler, and the action never runs
    }
}
