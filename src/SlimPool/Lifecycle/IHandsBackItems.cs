namespace SlimPool.Lifecycle;

/// <summary>
/// A pool item that stands for other items (a group's turn): when a shutdown abandons it, the items it stands for are
/// handed back in its place.
/// </summary>
internal interface IHandsBackItems
{
    /// <summary>The item will not run; adds the items it stands for to <paramref name="abandoned"/>. Called once per queueing.</summary>
    void HandBack(List<AbandonedWorkItem> abandoned);
}
