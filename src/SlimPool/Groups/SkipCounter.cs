namespace SlimPool.Groups;

/// <summary>
/// A group's count of items skipped for a cancelled token, with the delegate its cancellable items call: made by the
/// group's first item that carries a token that can be cancelled, so a group that never sees one carries neither.
/// </summary>
internal sealed class SkipCounter
{
    private long _count;

    public SkipCounter() => OnSkipped = () => Interlocked.Increment(ref _count);

    /// <summary>Counts one skipped item.</summary>
    public Action OnSkipped { get; }

    /// <summary>The items skipped so far.</summary>
    public long Count => Interlocked.Read(ref _count);
}
