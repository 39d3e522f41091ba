namespace SlimPool.Tests.Composition;

/// <summary>What a generated item does. Ordered simplest first: CsCheck shrinks towards the lower values.</summary>
internal enum ItemKind
{
    /// <summary>Spins for <see cref="ItemSpec.Amount"/> microseconds.</summary>
    Compute,

    /// <summary>Sleeps <see cref="ItemSpec.Amount"/> ms without telling the pool (the starvation guard's case).</summary>
    Block,

    /// <summary>Sleeps <see cref="ItemSpec.Amount"/> ms inside <see cref="SlimThreadPool.RunBlocking(Action)"/>.</summary>
    BlockHinted,

    /// <summary>Throws: the pool must report the exception once and live on.</summary>
    Throw,

    /// <summary>Queued with a token cancelled before queueing: never runs, counted as cancelled.</summary>
    Cancelled,

    /// <summary>A chain of <see cref="ItemSpec.Amount"/> steps, each queued by the one before from inside the pool (preferLocal).</summary>
    Chain,

    /// <summary>An async item (<c>pool.Run</c>, or a task on a group's scheduler) that awaits <c>Task.Yield()</c> <see cref="ItemSpec.Amount"/> times.</summary>
    Async,

    /// <summary>
    /// Calls <c>SynchronizationContext.Send</c> on the pool's context or a group's (<see cref="ItemSpec.SendTarget"/>), whose
    /// callback is an item of its own in the ledger (<see cref="ItemRecord.SentBy"/>): inline where the target's items run
    /// on this thread, else posted to the target and waited for, or refused with <see cref="ObjectDisposedException"/>.
    /// A group's item sends only to the pool, its own group or a later one, so no two items wait for each other.
    /// </summary>
    Send,

    /// <summary>
    /// A continuation on the pool's or a group's <c>TaskScheduler</c> (<c>ContinueWith</c>), made by the producer, whose
    /// antecedent the producer then completes inside another context (its <c>Local</c> "completer"): the continuation is
    /// queued by that context, and must run in its own, the producer's (or none under <c>SuppressFlow</c>). Not made once
    /// its pool or group has shut down (refused); one whose completion races a shutdown may be refused by the scheduler
    /// and run on the built-in pool (<see cref="ProgramRun.MayBeRefusedContinuation"/>).
    /// </summary>
    Continuation,

    /// <summary>
    /// Queued with a live token that its producer cancels as soon as the queue call has queued it, racing the workers:
    /// it runs once (a worker started it first) or is skipped and counted as cancelled once, never both; an abandon may
    /// hand it back instead, once.
    /// </summary>
    CancelledWhileQueued,

    /// <summary>
    /// A task made with <c>TaskCreationOptions.LongRunning</c> on the pool's <c>TaskScheduler</c> (always the pool's: a
    /// group's runs such a task as one of its items), blocking <see cref="ItemSpec.Amount"/> ms on a thread of its own
    /// ("&lt;pool&gt; long-running task"): the pool's work like any item, counted when it returns, waited for by
    /// <c>WaitForIdleAsync</c> and by every shutdown. Not made once the pool has begun to shut down (refused); one whose
    /// making races the shutdown may be refused by the scheduler and run on the built-in pool.
    /// </summary>
    LongRunning,

    /// <summary>
    /// Spins for <see cref="ItemSpec.Amount"/> microseconds, then, on one of the pool's workers, leaves its thread
    /// interrupted as it returns (<c>Thread.CurrentThread.Interrupt()</c>, as a watchdog's interrupt that comes late): the
    /// pool's own protocol on that thread (the next dequeue, a group turn's end, a publish, the idle entry) must neither
    /// throw at it nor leave a step half done; the thread's next wait meets it, as on the built-in pool. The next item's
    /// step takes it as it starts, before its record-keeping, as a user's item that waits would (ItemRecord), so only the
    /// pool's reaction is checked. Off the workers (an item a shutdown or a producer runs itself) it does not interrupt.
    /// </summary>
    Interrupt,
}
