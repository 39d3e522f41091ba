using System.Reactive.Concurrency;
using SlimPool.Async;

namespace SlimPool.Reactive;

/// <summary>
/// An Rx scheduler whose every action runs as one item of a pool: a <see cref="SlimThreadPool"/>, a
/// <see cref="SlimThreadPoolGroup"/> (under the group's limit: a serial group runs one action at a time), or any other
/// <see cref="IThreadPool"/> such as <see cref="ManagedThreadPool"/>. Timed actions wait on a timer from a
/// <see cref="System.TimeProvider"/> and are queued to the pool when due.
/// </summary>
/// <remarks>
/// <para><b>No long-running path.</b> The scheduler offers <see cref="ISchedulerPeriodic"/> and
/// <see cref="IStopwatchProvider"/> but not <see cref="ISchedulerLongRunning"/>: Rx's <c>ObserveOn</c> and other
/// operators that find a long-running scheduler dedicate a thread to their loop, and that thread would be off the pool.
/// Here <c>ObserveOn</c> drains its queue in pool items, one at a time per observer, so the items are ordered and
/// the pool's (or group's) limit and fairness apply.</para>
/// <para><b>Costs.</b> An immediate action is one pool item: one small object, which is both the item and the
/// <see cref="IDisposable"/> returned. A delayed action adds one timer; a periodic one keeps one timer for its life.</para>
/// <para><b>Disposal.</b> Disposing what <c>Schedule</c> returned before the action starts means it never runs;
/// disposing it later disposes what the action returned (Rx's recursive scheduling relies on this). Disposing a
/// periodic stops it: a tick already running finishes, and no tick starts after.</para>
/// <para><b>Periodic ticks never overlap.</b> A periodic holds one turn: at any moment its timer is armed, or one tick
/// is queued, or one tick runs; the timer is armed again only when a tick returns. Ticks are due at fixed times
/// (start + n × period); a tick that finds itself late runs at once and the schedule goes on from it, so a slow tick or a
/// busy pool delays the ticks after it but never causes a burst of them. A zero period queues each tick as soon as the
/// one before returns.</para>
/// <para><b>Exceptions.</b> An exception thrown by an action goes where the pool sends its items' exceptions
/// (<see cref="SlimThreadPoolOptions.UnhandledException"/>; the worker lives on). A periodic whose action throws
/// stops: its state is lost with the exception.</para>
/// <para><b>A pool that no longer accepts work.</b> Calls that queue at once (an immediate <c>Schedule</c>, a due time
/// of zero or less, a zero period) throw the pool's <see cref="ObjectDisposedException"/> to the caller, as the pool's
/// own <c>Queue</c> does. A timer that comes due after the pool (or group) stopped accepting cannot throw to anyone: its
/// action is dropped, never runs, and is counted in <see cref="RefusedCount"/>; a periodic stops there.</para>
/// <para><b>Time.</b> <see cref="Now"/>, stopwatches and timers come from the <see cref="System.TimeProvider"/> given
/// (<see cref="TimeProvider.System"/> by default), so tests can move time by hand. With the system provider, an action
/// scheduled for an absolute time goes through <see cref="LocalScheduler"/>'s queue, which follows changes of the
/// system clock; with another provider it waits for <c>dueTime - Now</c> by that provider's clock.</para>
/// </remarks>
public sealed class SlimPoolScheduler : LocalScheduler, ISchedulerPeriodic
{
    private readonly IThreadPool _pool;
    private readonly TimeProvider _timeProvider;
    private long _refusedCount;

    /// <summary>Creates a scheduler over <paramref name="pool"/>. The scheduler does not own the pool: it never disposes it.</summary>
    /// <param name="pool">The pool or group whose items run the actions.</param>
    /// <param name="timeProvider">The clock and timers; <see langword="null"/> for <see cref="TimeProvider.System"/>.</param>
    /// <exception cref="ArgumentNullException"><paramref name="pool"/> is <see langword="null"/>.</exception>
    public SlimPoolScheduler(IThreadPool pool, TimeProvider? timeProvider = null)
    {
        ArgumentNullException.ThrowIfNull(pool);
        _pool = pool;
        _timeProvider = timeProvider ?? TimeProvider.System;
    }

    /// <summary>The pool or group whose items run the actions.</summary>
    public IThreadPool Pool => _pool;

    /// <summary>The clock and timers the scheduler uses.</summary>
    public TimeProvider TimeProvider => _timeProvider;

    /// <summary>
    /// How many timed actions (delayed items and periodic ticks) came due after the pool stopped accepting work, and so
    /// never ran. A bounded pool that is full only delays them: they are queued past the bound, as continuations are.
    /// Actions for an absolute time are counted once, when the timer of Rx's queue first finds them due after the
    /// shutdown; that queue keeps them and hands them back at a change of the system clock, which counts nothing again.
    /// </summary>
    public long RefusedCount => Interlocked.Read(ref _refusedCount);

    /// <summary>The time by the scheduler's <see cref="System.TimeProvider"/> (<see cref="System.TimeProvider.GetUtcNow"/>).</summary>
    public override DateTimeOffset Now => _timeProvider.GetUtcNow();

    /// <summary>Queues <paramref name="action"/> as one pool item.</summary>
    /// <typeparam name="TState">The type of the state passed to the action.</typeparam>
    /// <param name="state">The state passed to the action.</param>
    /// <param name="action">The action; it gets this scheduler, to schedule more work recursively.</param>
    /// <returns>Disposing it before the action starts skips the action; later, it disposes what the action returned.</returns>
    /// <exception cref="ArgumentNullException"><paramref name="action"/> is <see langword="null"/>.</exception>
    /// <exception cref="ObjectDisposedException">The pool (or group) no longer accepts work.</exception>
    public override IDisposable Schedule<TState>(TState state, Func<IScheduler, TState, IDisposable> action)
    {
        ArgumentNullException.ThrowIfNull(action);
        var item = new ScheduledItem<TState>(this, state, action);
        if (_pool is ISchedulingTarget target && target.IsRunningItemsOnCurrentThread)
        {
            // Scheduled from inside one of the target's own items: Rx's recursion (an ObserveOn delivering its queue one
            // item an action) carries on work the producer was already told was accepted, so it is queued as the
            // pool's continuations are: past a bound, and through a drain until its last look. Refused (an abandon, or
            // the drain over), Rx's queue behind it is lost: counted, and thrown where the pool reports it.
            if (!target.TryEnqueue(item, null))
            {
                Interlocked.Increment(ref _refusedCount);
                throw target.NewDisposedException();
            }

            return item;
        }

        _pool.Queue(item);
        return item;
    }

    /// <summary>Queues <paramref name="action"/> as one pool item when <paramref name="dueTime"/> has passed.</summary>
    /// <typeparam name="TState">The type of the state passed to the action.</typeparam>
    /// <param name="state">The state passed to the action.</param>
    /// <param name="dueTime">How long to wait; zero or less queues at once, as <see cref="Schedule{TState}(TState, Func{IScheduler, TState, IDisposable})"/>.</param>
    /// <param name="action">The action; it gets this scheduler, to schedule more work recursively.</param>
    /// <returns>Disposing it before the action starts cancels the timer and skips the action; later, it disposes what the action returned.</returns>
    /// <exception cref="ArgumentNullException"><paramref name="action"/> is <see langword="null"/>.</exception>
    /// <exception cref="ObjectDisposedException">The due time is zero or less and the pool (or group) no longer accepts
    /// work. A later due time never throws this: see <see cref="RefusedCount"/>.</exception>
    public override IDisposable Schedule<TState>(TState state, TimeSpan dueTime, Func<IScheduler, TState, IDisposable> action)
    {
        ArgumentNullException.ThrowIfNull(action);
        if (dueTime <= TimeSpan.Zero)
        {
            // LocalScheduler's queue for absolute times hands its work back here once it is due, from a timer or from its
            // handler of a system clock change: a due action with no caller to throw to, as a timer's is (a throw there
            // ends the process). Each action it carries runs in its own context (the absolute Schedule's wrapper).
            if (IsLocalSchedulersOwn(action))
            {
                // Accepted as a continuation is, through a drain (it never queues itself again); refused, it stays in Rx's
                // queue, which hands it back at the next change of the clock: not counted, as it may yet run.
                var due = new ScheduledItem<TState>(this, state, action);
                _ = TryQueueFoundDue(due, context: null);
                return due;
            }

            return Schedule(state, action);
        }

        var item = new DelayedItem<TState>(this, state, action);
        item.Start(dueTime);
        return item;
    }

    /// <summary>Queues <paramref name="action"/> as one pool item at <paramref name="dueTime"/>.</summary>
    /// <typeparam name="TState">The type of the state passed to the action.</typeparam>
    /// <param name="state">The state passed to the action.</param>
    /// <param name="dueTime">When to run it; a time already past queues at once.</param>
    /// <param name="action">The action; it gets this scheduler, to schedule more work recursively.</param>
    /// <returns>Disposing it before the action starts skips the action; later, it disposes what the action returned.</returns>
    /// <exception cref="ArgumentNullException"><paramref name="action"/> is <see langword="null"/>.</exception>
    public override IDisposable Schedule<TState>(TState state, DateTimeOffset dueTime, Func<IScheduler, TState, IDisposable> action)
    {
        ArgumentNullException.ThrowIfNull(action);

        // LocalScheduler's queue for absolute times measures with the system clock and follows its changes; a provider of
        // another clock (a test's) must be asked instead, or its time and the system's would mix.
        if (!ReferenceEquals(_timeProvider, TimeProvider.System))
        {
            return Schedule(state, dueTime - Now, action);
        }

        // That queue runs each item that comes due inside a pool item armed by whichever caller armed it, in that caller's
        // context: each action runs there, in due-time order, as a part of that accepted item (a drain runs it, an abandon
        // hands it back), but in the context captured here (none: the worker's own), and named as itself by the
        // slow-item watch.
        ExecutionContext? context = CaptureDueContext();
        return base.Schedule((State: state, Action: action, Context: context), dueTime, static (scheduler, s) =>
        {
            var self = (SlimPoolScheduler)scheduler;
            var item = new ScheduledItem<TState>(self, s.State, s.Action);
            ExecutionContext.Run(s.Context ?? self.CleanContextHere, static x =>
            {
                var (owner, found) = ((SlimPoolScheduler, IWorkItem))x!;
                owner.RunInside(found);
            }, (self, (IWorkItem)item));
            return item;
        });
    }

    /// <summary>Runs <paramref name="action"/> every <paramref name="period"/>, each tick one pool item; ticks never overlap.</summary>
    /// <typeparam name="TState">The type of the state passed from tick to tick.</typeparam>
    /// <param name="state">The state passed to the first tick.</param>
    /// <param name="period">The time between ticks' due times; zero queues each tick as soon as the one before returns.</param>
    /// <param name="action">The tick: takes the state the previous tick returned and returns the next.</param>
    /// <returns>Disposing it stops the ticks: one already running finishes, none starts after.</returns>
    /// <exception cref="ArgumentNullException"><paramref name="action"/> is <see langword="null"/>.</exception>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="period"/> is negative.</exception>
    /// <exception cref="ObjectDisposedException">The period is zero and the pool (or group) no longer accepts work.</exception>
    public IDisposable SchedulePeriodic<TState>(TState state, TimeSpan period, Func<TState, TState> action)
    {
        ArgumentNullException.ThrowIfNull(action);
        ArgumentOutOfRangeException.ThrowIfLessThan(period, TimeSpan.Zero);
        var item = new PeriodicItem<TState>(this, state, period, action);
        item.Start();
        return item;
    }

    /// <summary>A stopwatch on the scheduler's <see cref="System.TimeProvider"/>'s timestamps.</summary>
    /// <returns>A stopwatch started now.</returns>
    public override IStopwatch StartStopwatch() => new TimeProviderStopwatch(_timeProvider);

    /// <summary>
    /// Queues an item whose timer came due; false (and counted) if the pool no longer accepts work. Nobody waits on a
    /// timer, so on SlimPool's pools and groups the item is queued as the pool's own continuations are: never refused or
    /// delayed by a <see cref="SlimThreadPoolOptions.BoundedCapacity"/>, only once the target has begun to shut down. Another
    /// <see cref="IThreadPool"/> is asked with <see cref="IThreadPool.TryQueue(IWorkItem)"/>, and a refusal counts as
    /// shut down.
    /// </summary>
    /// <remarks>
    /// The item runs in <paramref name="context"/>, the one <see cref="CaptureDueContext"/> took where it was scheduled,
    /// not in that of the thread it comes due on (a timer's, or a tick's); with none, it starts from the worker's.
    /// </remarks>
    internal bool TryQueueDue(IWorkItem item, ExecutionContext? context)
    {
        // Refused from the moment the target begins to shut down: a periodic always due (a zero period, a tick longer
        // than its period) would otherwise keep a drain busy for ever.
        bool queued = _pool is ISchedulingTarget target ? target.TryEnqueueWhileOpen(item, null, context) : TryQueueIn(context, _pool, item);
        if (queued)
        {
            return true;
        }

        Interlocked.Increment(ref _refusedCount);
        return false;
    }

    // An action of LocalScheduler's own machinery (a method of it, or of a closure class nested in it): never a user's.
    private static bool IsLocalSchedulersOwn(Delegate action)
    {
        for (Type? type = action.Method.DeclaringType; type is not null; type = type.DeclaringType)
        {
            if (type == typeof(LocalScheduler))
            {
                return true;
            }
        }

        return false;
    }

    // Where an action that carries no context runs when it runs inline here (see SlimThreadPool.CleanContextHere).
    private ExecutionContext CleanContextHere => _pool is ISchedulingTarget target ? target.Pool.CleanContextHere : SlimPool.Workers.ThreadContexts.Clean;

    // An absolute-time action, inside the item of Rx's queue that found it due: named as itself on SlimPool's pools.
    private void RunInside(IWorkItem item)
    {
        if (_pool is ISchedulingTarget target)
        {
            target.Pool.RunNamedInside(item);
        }
        else
        {
            item.Execute();
        }
    }

    /// <summary>
    /// Queues what Rx's queue for absolute times hands back once due: on SlimPool's pools and groups as the pool's own
    /// continuations are, past a bound and through a drain until its last look, since it continues accepted work and
    /// never queues itself again; false once refused. Not counted in <see cref="RefusedCount"/>: Rx's queue keeps it and
    /// hands it back at the next change of the clock.
    /// </summary>
    private bool TryQueueFoundDue(IWorkItem item, ExecutionContext? context) =>
        _pool is ISchedulingTarget target ? target.TryEnqueue(item, null, context) : TryQueueIn(context, _pool, item);

    /// <summary>
    /// The context a timed action carries from its <c>Schedule</c> call to its due time: the caller's, on SlimPool's pools
    /// and groups and on a <see cref="ManagedThreadPool"/> only when the pool flows it
    /// (<see cref="SlimThreadPoolOptions.FlowExecutionContext"/>); none under a suppressed flow.
    /// </summary>
    internal ExecutionContext? CaptureDueContext() => _pool switch
    {
        ISchedulingTarget target => target.Pool.CaptureContextToFlow(),
        ManagedThreadPool managed => managed.FlowsExecutionContext ? ExecutionContext.Capture() : null,
        _ => ExecutionContext.Capture(),
    };

    // Another IThreadPool captures an item's context itself, on the queueing thread: the call is made in the context
    // the item carries, or with the flow suppressed.
    private static bool TryQueueIn(ExecutionContext? context, IThreadPool pool, IWorkItem item)
    {
        if (context is not null)
        {
            var call = new DueCall(pool, item);
            ExecutionContext.Run(context, static c => ((DueCall)c!).Run(), call);
            return call.Queued;
        }

        if (ExecutionContext.IsFlowSuppressed())
        {
            return pool.TryQueue(item);
        }

        using (ExecutionContext.SuppressFlow())
        {
            return pool.TryQueue(item);
        }
    }
}
