namespace SlimPool.Tests.Infrastructure;

/// <summary>Tests that load every core on purpose run in this collection, after the parallel ones, one at a time.</summary>
[CollectionDefinition(Name, DisableParallelization = true)]
public sealed class RunsAloneCollection
{
    public const string Name = "Runs alone";
}
