namespace SlimPool.Queues;

/// <summary>
/// A work item of an adapter (an Rx scheduler's action, say) that can say what the user gave it, so the slow-item
/// watch names the user's delegate rather than the adapter's type (<see cref="Diagnostics.SlowItemWatch.Describe"/>).
/// </summary>
internal interface INamedWorkItem
{
    /// <summary>The user's callback and its state, as a queue entry would hold them; read only for a report.</summary>
    (object? Callback, object? State) NameParts { get; }
}
