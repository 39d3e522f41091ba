namespace SlimPool.Tests.Composition;

/// <summary>
/// One <c>WaitForIdleAsync</c> a producer's script made (<see cref="ScriptOp.WaitForIdle"/>): the pool's (target −1) or
/// a group's, the ledger's sequence number just before the call, and the one taken by a continuation that runs
/// synchronously as the task completes (0 until then). An item that ended before the completion has a smaller end number.
/// </summary>
internal sealed class IdleWaitRecord(string producer, string label, int target, long callSeq)
{
    private long _completedSeq;

    public string Producer => producer;

    public string Label => label;

    public int Target => target;

    public bool IsPool => target < 0;

    public long CallSeq => callSeq;

    public long CompletedSeq => Volatile.Read(ref _completedSeq);

    public void OnCompleted(long seq) => Volatile.Write(ref _completedSeq, seq);

    public string Describe() => $"{label}: {(IsPool ? "pool" : $"g{target}")}.WaitForIdleAsync()";
}
