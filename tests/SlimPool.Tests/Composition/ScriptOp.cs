namespace SlimPool.Tests.Composition;

/// <summary>One step of a producer's script: queue an item, pause, or shut something down (exactly one is set).</summary>
internal sealed record ScriptOp(ItemSpec? Item, int PauseMs, ShutdownSpec? Shutdown)
{
    public static ScriptOp Queue(ItemSpec item) => new(item, 0, null);

    public static ScriptOp Pause(int ms) => new(null, ms, null);

    public static ScriptOp ShutDown(ShutdownSpec shutdown) => new(null, 0, shutdown);

    public string ToCSharp(string label) =>
        Item is not null ? Item.ToCSharp(label)
        : Shutdown is not null ? Shutdown.ToCSharp()
        : PauseMs == 0 ? "Thread.Yield();" : $"Thread.Sleep({PauseMs});";

    public override string ToString() => ToCSharp("item");
}
