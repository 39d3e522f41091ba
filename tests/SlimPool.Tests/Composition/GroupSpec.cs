namespace SlimPool.Tests.Composition;

/// <summary>A generated group: its concurrency limit (1 = a serial queue) and its quantum in items.</summary>
internal sealed record GroupSpec(int MaxConcurrency, int MaxItemsPerTurn)
{
    public SlimGroupOptions ToOptions() => new() { MaxConcurrency = MaxConcurrency, MaxItemsPerTurn = MaxItemsPerTurn };

    public override string ToString() =>
        $"pool.CreateGroup(new SlimGroupOptions {{ MaxConcurrency = {MaxConcurrency}, MaxItemsPerTurn = {MaxItemsPerTurn} }})";
}
