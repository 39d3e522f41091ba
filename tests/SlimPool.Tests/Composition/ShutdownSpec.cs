namespace SlimPool.Tests.Composition;

/// <summary>A generated shutdown: of the pool (<see cref="Target"/> −1) or a group, how, and from where.</summary>
internal sealed record ShutdownSpec(int Target, ShutdownKind Kind, int CancelAfterMs, ShutdownFrom From)
{
    public string TargetName => Target < 0 ? "pool" : $"g{Target}";

    /// <summary>The C# of the call, waited for unless it is made on a worker (where a wait would hold the worker).</summary>
    public string ToCSharp()
    {
        string call = Kind switch
        {
            ShutdownKind.Drain => $"{TargetName}.ShutdownAsync(ShutdownMode.Drain)",
            ShutdownKind.Abandon => $"{TargetName}.ShutdownAsync(ShutdownMode.Abandon)",
            ShutdownKind.CancelledDrain => $"{TargetName}.ShutdownAsync(ShutdownMode.Drain, CancelAfter(ms: {CancelAfterMs}))",
            _ => $"{TargetName}.Dispose()",
        };

        if (From != ShutdownFrom.Controller)
        {
            string host = From == ShutdownFrom.GroupItem ? $"g{Math.Max(Target, 0)}" : "pool";
            return Kind == ShutdownKind.Dispose
                ? $"{host}.Queue(() => {call}); // on a worker: does not wait"
                : $"{host}.Queue(() => _ = {call}); // on a worker: not waited for";
        }

        return Kind == ShutdownKind.Dispose ? $"{call};" : $"RunAndTakeBack({call}); // waits, then runs the items handed back";
    }

    public override string ToString() => ToCSharp();
}
