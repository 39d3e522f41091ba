namespace SlimPool.Tests.Composition;

/// <summary>
/// Which programs the generator may make, and which checks fail them: <see cref="Everything"/> for the general property,
/// narrower scopes to aim at one feature's meeting with another (and to show which promise a failure breaks).
/// </summary>
internal sealed record ComposeScope(string Name)
{
    public WorkQueueKind[] Queues { get; init; } = [WorkQueueKind.Locked, WorkQueueKind.LockFree, WorkQueueKind.WorkStealing];

    public IdleWaitKind[] IdleWaits { get; init; } = [IdleWaitKind.AutoResetEvent, IdleWaitKind.SpinThenPark];

    public int MinWorkers { get; init; } = 1;

    public int MaxWorkers { get; init; } = 3;

    /// <summary>Whether <c>BoundedCapacity</c> may be set (small: 2, 4 or 16).</summary>
    public bool Bounded { get; init; } = true;

    public bool[] Flow { get; init; } = [false, true];

    /// <summary>Whether the pool has <c>OnThreadStart</c>/<c>OnThreadExit</c> hooks (<see cref="ThreadHookRecords"/>).</summary>
    public bool[] ThreadHooks { get; init; } = [false, true];

    /// <summary>Whether spares retire after <see cref="PoolSpec.ShortSpareIdleTimeout"/> rather than the default.</summary>
    public bool[] ShortSpareIdle { get; init; } = [false, true];

    /// <summary>Whether the starvation guard looks every <see cref="PoolSpec.ShortStarvationTimeout"/> rather than the default.</summary>
    public bool[] ShortStarvation { get; init; } = [false, true];

    public ItemKind[] Kinds { get; init; } = Enum.GetValues<ItemKind>();

    /// <summary>Groups a program may create (0 to this many), each MaxConcurrency 1 to <see cref="MaxConcurrency"/>.</summary>
    public int MaxGroups { get; init; } = 3;

    public int MaxConcurrency { get; init; } = 3;

    /// <summary>How often an item goes to a group rather than the pool, out of 4 (when there are groups).</summary>
    public int GroupShare { get; init; } = 2;

    public bool Priorities { get; init; } = true;

    public bool SuppressFlow { get; init; } = true;

    public int MaxProducers { get; init; } = 2;

    public int MaxOps { get; init; } = 16;

    /// <summary>Chains of 2,000 to 20,000 steps now and then (long enough to bury what a worker holds).</summary>
    public bool LongChains { get; init; } = true;

    public ShutdownKind[] ShutdownKinds { get; init; } = Enum.GetValues<ShutdownKind>();

    /// <summary>Whether producers' scripts may shut things down too (the controller may always).</summary>
    public bool ProducerShutdowns { get; init; } = true;

    public bool ControllerShutdown { get; init; } = true;

    /// <summary>Whether producers' scripts may wait for <c>WaitForIdleAsync</c> of the pool or of a group.</summary>
    public bool WaitsForIdle { get; init; } = true;

    /// <summary>Whether a shutdown may target a group (else only the pool).</summary>
    public bool GroupShutdowns { get; init; } = true;

    public ShutdownFrom[] ShutdownFroms { get; init; } = [ShutdownFrom.Controller, ShutdownFrom.Worker, ShutdownFrom.GroupItem];

    /// <summary>The checks whose violations fail a program; null for all of them.</summary>
    public string[]? Checks { get; init; }

    public static ComposeScope Everything { get; } = new("every feature");

    public override string ToString() => Name;
}
