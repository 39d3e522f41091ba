namespace SlimPool;

/// <summary>How urgent an item (or every item of a group) is, relative to the pool's other items.</summary>
/// <remarks>
/// <see cref="High"/> items start before <see cref="Normal"/> ones that are already queued, except that a worker that
/// has taken 61 <see cref="High"/> items in a row looks at the queue first once, so endless High work (an item that
/// queues its successor, a busy High group) delays Normal items but never starves them; <see cref="Low"/> items
/// start when no other item waits, or once they have waited <see cref="SlimThreadPoolOptions.LowPriorityMaxDelay"/>
/// (aging), so a flood of other work delays them but never starves them. Items queued without a priority are
/// <see cref="Normal"/> and take the pool's usual path, at no extra cost.
/// </remarks>
public enum WorkItemPriority
{
    /// <summary>Runs after the pool's other queued items, or once it has waited <see cref="SlimThreadPoolOptions.LowPriorityMaxDelay"/>.</summary>
    Low = -1,

    /// <summary>The default: the pool's usual order.</summary>
    Normal = 0,

    /// <summary>Runs before the pool's queued <see cref="Normal"/> and <see cref="Low"/> items.</summary>
    High = 1,
}
