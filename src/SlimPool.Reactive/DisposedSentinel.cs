namespace SlimPool.Reactive;

/// <summary>
/// Marks an item's result slot as disposed. Its own type, not Rx's <c>Disposable.Empty</c>, which an action may return
/// as its result.
/// </summary>
internal sealed class DisposedSentinel : IDisposable
{
    public static readonly DisposedSentinel Instance = new();

    private DisposedSentinel()
    {
    }

    public void Dispose()
    {
    }
}
