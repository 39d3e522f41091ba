using System.Globalization;

namespace SlimPool.Tests.Composition;

/// <summary>
/// A generated group: its concurrency limit (1 = a serial queue), its quantum in items and in time
/// (<see cref="MaxTurnMicroseconds"/>; −1 for no time limit), and the priority its turns are queued at in the pool.
/// </summary>
internal sealed record GroupSpec(int MaxConcurrency, int MaxItemsPerTurn, int MaxTurnMicroseconds = 1_000, WorkItemPriority Priority = WorkItemPriority.Normal)
{
    public SlimGroupOptions ToOptions() => new()
    {
        MaxConcurrency = MaxConcurrency,
        MaxItemsPerTurn = MaxItemsPerTurn,
        MaxTurnDuration = MaxTurnMicroseconds < 0 ? Timeout.InfiniteTimeSpan : TimeSpan.FromMicroseconds(MaxTurnMicroseconds),
        Priority = Priority,
    };

    public override string ToString()
    {
        string duration = MaxTurnMicroseconds < 0 ? "Timeout.InfiniteTimeSpan" : $"TimeSpan.FromMicroseconds({MaxTurnMicroseconds})";
        string priority = Priority == WorkItemPriority.Normal ? string.Empty : $", Priority = WorkItemPriority.{Priority}";
        return string.Create(
            CultureInfo.InvariantCulture,
            $"pool.CreateGroup(new SlimGroupOptions {{ MaxConcurrency = {MaxConcurrency}, MaxItemsPerTurn = {MaxItemsPerTurn}, MaxTurnDuration = {duration}{priority} }})");
    }
}
