using Proto.Mailbox;
using SlimPool.Async;

namespace SlimPool.ProtoActor;

/// <summary>
/// A Proto.Actor <see cref="IDispatcher"/> that runs mailboxes on a SlimPool pool: a <see cref="SlimThreadPool"/>, or
/// a <see cref="SlimThreadPoolGroup"/> to cap how many mailboxes of the dispatcher run at once. Set it per actor with
/// <c>Props.WithDispatcher(dispatcher)</c>:
/// <code>
/// using var pool = new SlimThreadPool();
/// var dispatcher = new SlimPoolDispatcher(pool);
/// PID pid = system.Root.Spawn(Props.FromProducer(() => new MyActor()).WithDispatcher(dispatcher));
/// </code>
/// </summary>
/// <remarks>
/// <para><b>Who owns the pool.</b> The caller does: the dispatcher borrows it and never disposes it, so one pool can
/// serve several dispatchers (different <see cref="Throughput"/>s) and other work. Dispose the pool after the actor
/// system has shut down (<c>await system.ShutdownAsync()</c>): disposing drains, so every mailbox run already queued
/// still runs.</para>
/// <para><b>A bound.</b> On a pool with <see cref="SlimThreadPoolOptions.BoundedCapacity"/>, a mailbox run is queued
/// past the bound, as the pool's own continuations are: a run is the rest of messages already accepted, Proto holds at
/// most one per mailbox, and a run sent elsewhere would escape a group's <see cref="SlimGroupOptions.MaxConcurrency"/>
/// (a serial group would run two mailboxes at once).</para>
/// <para><b>A pool that refuses a run.</b> Once the pool (or group) begins to shut down, while actors still get
/// messages, the mailbox run goes to the built-in <see cref="ThreadPool"/> instead, exactly as Proto's
/// <see cref="ThreadPoolDispatcher"/> would queue it. No message is lost and an actor never stalls with messages in its
/// mailbox, so stops, poison pills and the actor system's own shutdown still complete; <see cref="FallbackRunCount"/>
/// counts those runs, so that a pool disposed too early shows. A pool shut down with <see cref="ShutdownMode.Abandon"/>
/// hands its queued runs back in <see cref="ShutdownResult.AbandonedItems"/>: Proto counts each of those mailboxes as
/// busy until its run runs, so run them (<see cref="AbandonedWorkItem.Run"/>) or those actors never process another
/// message, their stop included.</para>
/// <para><b>Cost.</b> Proto's mailbox hands <see cref="Schedule"/> a delegate per run (its own allocation); this
/// dispatcher queues that delegate as the state of one static callback, which costs SlimPool no allocation, and from a
/// worker of the pool (an actor telling another actor) it goes to that worker's own queue.</para>
/// <para><b>Async and blocking actors.</b> A run that awaits (an <c>async</c> receive) returns its worker to the pool at
/// the first <c>await</c> that does not complete at once; the rest of the run goes on where the awaited task completes,
/// on the pool when the workers run under its <see cref="SlimThreadPool.SynchronizationContext"/> (the default). An actor
/// that blocks its thread is covered by the pool's starvation guard, which adds a spare worker when queued runs make no
/// progress for <see cref="SlimThreadPoolOptions.StarvationTimeout"/>; an actor that knows it blocks can say so with
/// <see cref="SlimThreadPool.EnterBlocking"/> so that a spare starts at once.</para>
/// </remarks>
public sealed class SlimPoolDispatcher : IDispatcher
{
    /// <summary>Proto.Actor's own default: how many messages a mailbox run processes before it gives its thread back.</summary>
    public const int DefaultThroughput = 300;

    // One delegate for every run: the mailbox's runner travels as the item's state, so queueing allocates nothing.
    private static readonly Action<object?> s_runOnPool = RunOnPool;

    private readonly IThreadPool _pool;
    private readonly int _throughput;
    private long _fallbackRunCount;

    /// <summary>Creates a dispatcher that runs mailboxes on <paramref name="pool"/>, which it borrows (see the remarks on the type).</summary>
    /// <param name="pool">The pool or group that runs the mailboxes.</param>
    /// <param name="throughput">How many messages a mailbox run processes before it gives its thread back (Proto's
    /// <see cref="IDispatcher.Throughput"/>); default <see cref="DefaultThroughput"/>, as Proto's own dispatchers. At least 1.</param>
    /// <exception cref="ArgumentNullException"><paramref name="pool"/> is <see langword="null"/>.</exception>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="throughput"/> is less than 1.</exception>
    public SlimPoolDispatcher(IThreadPool pool, int throughput = DefaultThroughput)
    {
        ArgumentNullException.ThrowIfNull(pool);
        // Proto's mailbox loops `for (i = 0; i < Throughput; i++)`: 0 or less would process nothing and never reschedule.
        ArgumentOutOfRangeException.ThrowIfLessThan(throughput, 1);
        _pool = pool;
        _throughput = throughput;
    }

    /// <summary>The pool or group that runs the mailboxes (borrowed: the dispatcher never disposes it).</summary>
    public IThreadPool Pool => _pool;

    /// <summary>How many messages a mailbox run processes before it gives its thread back to the pool's other items.</summary>
    public int Throughput => _throughput;

    /// <summary>
    /// Mailbox runs that came after the pool (or group) began to shut down and ran on the built-in
    /// <see cref="ThreadPool"/> instead. Zero while the pool outlives the actor system.
    /// </summary>
    public long FallbackRunCount => Interlocked.Read(ref _fallbackRunCount);

    /// <summary>Queues one mailbox run on the pool. Proto's mailbox calls this; it returns at once and never blocks.</summary>
    /// <param name="runner">The mailbox's run: processes up to <see cref="Throughput"/> messages, then schedules itself again if more wait.</param>
    /// <exception cref="ArgumentNullException"><paramref name="runner"/> is <see langword="null"/>.</exception>
    public void Schedule(Func<Task> runner)
    {
        ArgumentNullException.ThrowIfNull(runner);
        // On SlimPool's pools and groups a run is queued as the pool's own continuations are, past a BoundedCapacity:
        // a run refused for back-pressure would go to the built-in pool, outside a group's MaxConcurrency, and a serial
        // group would run two mailboxes at once. The overshoot is bounded: Proto holds at most one run per mailbox. Once
        // the target begins to shut down, runs go to the built-in pool (actors that keep messaging each other would
        // otherwise keep a drain busy for ever).
        bool queued = _pool is ISchedulingTarget target ? target.TryEnqueueWhileOpen(s_runOnPool, runner) : _pool.TryQueue(s_runOnPool, runner);
        if (!queued)
        {
            Fallback(runner);
        }
    }

    // Runs the mailbox until its first await that does not complete at once, and gives the worker back there: the
    // worker never waits for the task. The mailbox catches what a receive throws (it escalates to the supervisor), so a
    // fault here is Proto's own bug: thrown on the worker, it reaches SlimThreadPoolOptions.UnhandledException.
    private static void RunOnPool(object? state)
    {
        Task run = ((Func<Task>)state!)();
        if (run.IsFaulted)
        {
            run.GetAwaiter().GetResult();
        }
    }

    // Off the pool, the built-in pool runs it the way Proto's ThreadPoolDispatcher does (a fault stays in the task),
    // so a mailbox is never left marked busy with messages nobody will process.
    private void Fallback(Func<Task> runner)
    {
        Interlocked.Increment(ref _fallbackRunCount);
        _ = Task.Factory.StartNew(runner, CancellationToken.None, TaskCreationOptions.DenyChildAttach, TaskScheduler.Default);
    }
}
