using System.Globalization;

namespace SlimPool.Tests.Composition;

/// <summary>
/// A generated group: its concurrency limit (1 = a serial queue), its quantum in items and in time
/// (<see cref="MaxTurnMicroseconds"/>; −1 for no time limit).
/// </summary>
internal sealed record GroupSpec(int MaxConcurrency, int MaxItemsPerTurn, int MaxTurnMicroseconds = 1_000)
{
    public SlimGroupOptions ToOptions() => new()
    {
        MaxConcurrency = MaxConcurrency,
        MaxItemsPerTurn = MaxItemsPerTurn,
        MaxTurnDuration = MaxTurnMicroseconds < 0 ? Timeout.InfiniteTimeSpan : TimeSpan.FromMicroseconds(MaxTurnMicroseconds),
    };

    public override string ToString()
    {
        string duration = MaxTurnMicroseconds < 0 ? "Timeout.InfiniteTimeSpan" : $"TimeSpan.FromMicroseconds({MaxTurnMicroseconds})";
        return string.Create(
            CultureInfo.InvariantCulture,
            $"pool.CreateGroup(new SlimGroupOptions {{ MaxConcurrency = {MaxConcurrency}, MaxItemsPerTurn = {MaxItemsPerTurn}, MaxTurnDuration = {duration} }})");
    }
}
