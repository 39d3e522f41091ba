namespace SlimPool.Reactive.Tests.Infrastructure;

/// <summary>
/// Tests that raise Rx's process-wide system-clock-change notice (every live scheduler's absolute-time queue re-plans on
/// it) run in this collection, after the parallel ones, one at a time.
/// </summary>
[CollectionDefinition(Name, DisableParallelization = true)]
public sealed class ClockChangeCollection
{
    public const string Name = "Rx clock changes";
}
