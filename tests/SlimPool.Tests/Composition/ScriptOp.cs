namespace SlimPool.Tests.Composition;

/// <summary>One step of a producer's script: queue an item, pause, shut something down, or wait until the pool (or a group) is idle.</summary>
internal sealed record ScriptOp(ItemSpec? Item, int PauseMs, ShutdownSpec? Shutdown, int? IdleTarget = null)
{
    public static ScriptOp Queue(ItemSpec item) => new(item, 0, null);

    public static ScriptOp Pause(int ms) => new(null, ms, null);

    public static ScriptOp ShutDown(ShutdownSpec shutdown) => new(null, 0, shutdown);

    /// <summary>Waits for <c>WaitForIdleAsync</c> of the pool (<paramref name="target"/> −1) or of group <paramref name="target"/>.</summary>
    public static ScriptOp WaitForIdle(int target) => new(null, 0, null, target);

    public string ToCSharp(string label) =>
        Item is not null ? Item.ToCSharp(label)
        : Shutdown is not null ? Shutdown.ToCSharp()
        : IdleTarget is { } target ? $"{(target < 0 ? "pool" : $"g{target}")}.WaitForIdleAsync().Wait(); // {label}"
        : PauseMs == 0 ? "Thread.Yield();" : $"Thread.Sleep({PauseMs});";

    public override string ToString() => ToCSharp("item");
}
