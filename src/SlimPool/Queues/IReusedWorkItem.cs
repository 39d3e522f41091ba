namespace SlimPool.Queues;

/// <summary>
/// A wrapper that is reused once it starts: it clears its fields and goes back to a spare slot before the user's
/// callback runs (<see cref="StateWorkItem{TState}"/>), so whoever needs to know what runs inside it (the slow-item
/// watch) must read <see cref="IWrappedWorkItem.Callback"/> before it starts.
/// </summary>
internal interface IReusedWorkItem : IWrappedWorkItem
{
}
