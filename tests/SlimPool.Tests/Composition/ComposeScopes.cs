namespace SlimPool.Tests.Composition;

/// <summary>Scopes aimed at one meeting of features each, checking only the promise at stake there.</summary>
internal static class ComposeScopes
{
    /// <summary>Work stealing with chains that requeue themselves: items from outside start in order and are never buried.</summary>
    public static ComposeScope WorkStealingChains { get; } = new("work stealing, self-requeuing chains, one producer")
    {
        Queues = [WorkQueueKind.WorkStealing],
        MaxWorkers = 1,
        Bounded = false,
        Kinds = [ItemKind.Compute, ItemKind.Chain],
        MaxGroups = 0,
        Priorities = false,
        SuppressFlow = false,
        MaxProducers = 1,
        MaxOps = 40,
        ProducerShutdowns = false,
        ControllerShutdown = false,
        Checks = [Promise.PoolOrder, Promise.StartBound, Promise.ExactlyOnce],
    };

    /// <summary>A drain whose token is cancelled while serial groups hold a backlog: nothing starts after it returns, all on the workers.</summary>
    public static ComposeScope CancelledDrainOverGroups { get; } = new("cancelled drain of the pool over serial groups")
    {
        MaxWorkers = 1,
        Bounded = false,
        Flow = [false],
        Kinds = [ItemKind.Block],
        MaxConcurrency = 1,
        GroupShare = 4,
        Priorities = false,
        SuppressFlow = false,
        MaxProducers = 1,
        MaxOps = 30,
        ShutdownKinds = [ShutdownKind.CancelledDrain],
        ProducerShutdowns = false,
        GroupShutdowns = false,
        ShutdownFroms = [ShutdownFrom.Controller],
        Checks = [Promise.NothingAfterShutdown, Promise.OnPoolWorkers, Promise.ExactlyOnce],
    };

    /// <summary>Async items in groups while the group or the pool drains: continuations stay in the group, on the workers, under its limit.</summary>
    public static ComposeScope AsyncGroupsDraining { get; } = new("async items in groups during a drain")
    {
        MaxWorkers = 2,
        Bounded = false,
        Flow = [false],
        Kinds = [ItemKind.Compute, ItemKind.Async],
        GroupShare = 4,
        Priorities = false,
        SuppressFlow = false,
        MaxProducers = 1,
        MaxOps = 30,
        ShutdownKinds = [ShutdownKind.Drain, ShutdownKind.Dispose],
        ProducerShutdowns = false,
        ShutdownFroms = [ShutdownFrom.Controller],
        Checks = [Promise.OnPoolWorkers, Promise.SerialNoOverlap, Promise.GroupLimit, Promise.NothingAfterShutdown],
    };

    /// <summary>Context flow with two producers sharing groups, some under SuppressFlow: each item sees its own producer's value or none.</summary>
    public static ComposeScope FlowAcrossProducers { get; } = new("FlowExecutionContext with two producers sharing groups")
    {
        MaxWorkers = 2,
        Bounded = false,
        Flow = [true, false],
        Kinds = [ItemKind.Compute, ItemKind.Block],
        GroupShare = 3,
        Priorities = false,
        MaxProducers = 2,
        ProducerShutdowns = false,
        ControllerShutdown = false,
        Checks = [Promise.OwnContext],
    };

    /// <summary>
    /// Chains relayed from group to group (actors answering each other: a turn of one item a message, each group's queue
    /// dropped and remade between messages, a clock started only at a turn's second item) while groups and the pool shut
    /// down: every step runs once or is refused, groups keep their limits, nothing starts after a shutdown returns.
    /// </summary>
    public static ComposeScope RelayChainsAcrossGroups { get; } = new("chains relayed across groups, with shutdowns")
    {
        Kinds = [ItemKind.Chain, ItemKind.Compute],
        GroupShare = 4,
        Priorities = false,
        Checks = [Promise.ExactlyOnce, Promise.RefusedNeverRuns, Promise.SerialNoOverlap, Promise.GroupLimit, Promise.NothingAfterShutdown, Promise.OnPoolWorkers],
    };

    /// <summary>
    /// Items that block (with and without a scope) and send, on pools whose spares retire after 5 ms and whose exit hook
    /// blocks in a scope of its own, with shutdowns: spares come only for blocking, every thread runs each hook once,
    /// items see the start hook's context only where they carry none.
    /// </summary>
    public static ComposeScope SparesWithThreadHooks { get; } = new("spares that come and go, thread hooks that block")
    {
        Kinds = [ItemKind.Compute, ItemKind.Block, ItemKind.BlockHinted, ItemKind.Send, ItemKind.Async],
        ThreadHooks = [true],
        ShortSpareIdle = [true],
        ShortStarvation = [false, true],
        Priorities = false,
        Checks = [Promise.HooksPairUp, Promise.SparesBounded, Promise.OwnContext, Promise.NothingAfterShutdown, Promise.ExactlyOnce, Promise.OnPoolWorkers],
    };

    /// <summary>
    /// Continuations on the pool's and groups' schedulers whose antecedents complete in another context, beside every
    /// other kind of item and the start hook, with no shutdown racing the program: each sees its own producer's context or
    /// none, never the completer's; counts and placement hold.
    /// </summary>
    public static ComposeScope ContinuationsCompletedElsewhere { get; } = new("continuations queued from another context")
    {
        Kinds = [ItemKind.Compute, ItemKind.Continuation, ItemKind.Async, ItemKind.Chain, ItemKind.Send],
        ThreadHooks = [true, false],
        ProducerShutdowns = false,
        ControllerShutdown = false,
        Checks = [Promise.OwnContext, Promise.ExactlyOnce, Promise.OnPoolWorkers, Promise.Counts, Promise.SerialNoOverlap, Promise.GroupLimit, Promise.PoolOrder],
    };

    /// <summary>
    /// Long-running tasks of the pool's TaskScheduler beside items, async items and groups, with every shutdown and idle
    /// waits: each runs once on a thread of its own (or, refused as a shutdown began, on the built-in pool), in its
    /// producer's context; no shutdown returns and no idle wait completes before the ones accepted ahead of it return;
    /// the pool counts each.
    /// </summary>
    public static ComposeScope LongRunningTasks { get; } = new("long-running tasks with shutdowns and idle waits")
    {
        Kinds = [ItemKind.Compute, ItemKind.LongRunning, ItemKind.Async, ItemKind.Chain],
        Checks = [Promise.ExactlyOnce, Promise.RefusedNeverRuns, Promise.NothingAfterShutdown, Promise.OnPoolWorkers, Promise.OwnContext,
            Promise.Counts, Promise.IdleAfterEarlierItems, Promise.NoHang, Promise.ComputeBoundThreads],
    };

    /// <summary>Priorities (and groups) with nothing racing a shutdown: the pool's counts equal the ledger's.</summary>
    public static ComposeScope PriorityCounts { get; } = new("priorities and the pool's counts")
    {
        Bounded = false,
        Kinds = [ItemKind.Compute, ItemKind.Block, ItemKind.Throw, ItemKind.Cancelled, ItemKind.CancelledWhileQueued],
        MaxGroups = 0,
        MaxProducers = 1,
        ProducerShutdowns = false,
        ControllerShutdown = false,
        Checks = [Promise.Counts],
    };

    /// <summary>
    /// Groups whose turns are queued at High or Low priority while the pool drains, cancels a drain or is disposed: the
    /// turns wait in the priority lanes, so the drain's workers must not leave while a lane holds one; every accepted item
    /// runs once, on the workers, and nothing starts after the shutdown returns.
    /// </summary>
    public static ComposeScope PrioritisedGroupsShuttingDown { get; } = new("groups at High and Low priority during a shutdown")
    {
        Bounded = false,
        Kinds = [ItemKind.Compute, ItemKind.Block, ItemKind.Chain],
        GroupShare = 4,
        MaxProducers = 2,
        MaxOps = 30,
        ShutdownKinds = [ShutdownKind.Drain, ShutdownKind.CancelledDrain, ShutdownKind.Dispose],
        Checks = [Promise.OnPoolWorkers, Promise.NothingAfterShutdown, Promise.ExactlyOnce],
    };
}
