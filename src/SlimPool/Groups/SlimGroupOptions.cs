namespace SlimPool;

/// <summary>Settings for a group of a pool's items (<see cref="SlimThreadPool.CreateGroup"/>). Each setter validates its value.</summary>
public sealed class SlimGroupOptions
{
    private int _maxConcurrency = 1;
    private int _maxItemsPerTurn = 32;
    private TimeSpan _maxTurnDuration = TimeSpan.FromMilliseconds(1);
    private WorkItemPriority _priority = WorkItemPriority.Normal;

    /// <summary>The group's name, in its metrics' <c>slimpool.group.name</c> tag. Default <see langword="null"/>: <c>"{pool name} group {n}"</c>.</summary>
    public string? Name { get; set; }

    /// <summary>
    /// How many of the group's items may run at once. Default 1: a serial queue, whose items run one at a time in the
    /// order they were queued, each seeing everything the one before it wrote. At least 1.
    /// </summary>
    /// <exception cref="ArgumentOutOfRangeException">The value is less than 1.</exception>
    public int MaxConcurrency
    {
        get => _maxConcurrency;
        set => _maxConcurrency = value >= 1 ? value : throw new ArgumentOutOfRangeException(nameof(MaxConcurrency), value, $"{nameof(MaxConcurrency)} must be at least 1.");
    }

    /// <summary>
    /// How many items a worker runs for the group before it gives the worker back to the pool's other items and groups
    /// (the group's turn then goes to the back of the pool's shared queue), if any are queued; with nothing else
    /// queued the turn runs on. Default 32. At least 1.
    /// </summary>
    /// <exception cref="ArgumentOutOfRangeException">The value is less than 1.</exception>
    public int MaxItemsPerTurn
    {
        get => _maxItemsPerTurn;
        set => _maxItemsPerTurn = value >= 1 ? value : throw new ArgumentOutOfRangeException(nameof(MaxItemsPerTurn), value, $"{nameof(MaxItemsPerTurn)} must be at least 1.");
    }

    /// <summary>
    /// How long a worker runs the group's items before it gives the worker back, whichever of this and
    /// <see cref="MaxItemsPerTurn"/> comes first. A turn's clock starts when it takes its second item (a turn that runs
    /// one item reads no clock) and is read as the items timed double, after the 2nd, 3rd, 5th, 9th, ... item (a read per
    /// tiny item would cost as much as the item's hand-off), the first item counted at the rate of the others, so a turn
    /// of items of similar length ends within twice this, or after its second item if one item alone reaches it. A turn
    /// that runs on because nothing else is queued starts a new quantum with its clock read at once; after a quantum
    /// whose items proved much shorter than this (a whole quantum of them under half of it), the next skips the reads
    /// after its 1st, 2nd and 4th item, so an item that turns long then is noticed within 8 items. Default 1 ms;
    /// <see cref="Timeout.InfiniteTimeSpan"/> turns the time limit off.
    /// </summary>
    /// <exception cref="ArgumentOutOfRangeException">The value is zero, or negative and not <see cref="Timeout.InfiniteTimeSpan"/>.</exception>
    public TimeSpan MaxTurnDuration
    {
        get => _maxTurnDuration;
        set => _maxTurnDuration = value > TimeSpan.Zero || value == Timeout.InfiniteTimeSpan
            ? value
            : throw new ArgumentOutOfRangeException(nameof(MaxTurnDuration), value, $"{nameof(MaxTurnDuration)} must be positive, or Timeout.InfiniteTimeSpan for no time limit.");
    }

    /// <summary>The priority of the group's turns on the pool (see <see cref="WorkItemPriority"/>). Default <see cref="WorkItemPriority.Normal"/>.</summary>
    /// <exception cref="ArgumentOutOfRangeException">The value is not a defined <see cref="WorkItemPriority"/>.</exception>
    public WorkItemPriority Priority
    {
        get => _priority;
        set => _priority = value is WorkItemPriority.Low or WorkItemPriority.Normal or WorkItemPriority.High
            ? value
            : throw new ArgumentOutOfRangeException(nameof(Priority), value, $"{nameof(Priority)} must be Low, Normal or High.");
    }
}
