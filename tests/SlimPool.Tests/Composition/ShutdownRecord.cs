namespace SlimPool.Tests.Composition;

/// <summary>
/// One shutdown call as it happened: who made it, the sequence numbers of the call, the token's cancellation and the
/// return (null while it has not returned, and for a Dispose made on a worker, which does not wait), and its result.
/// </summary>
internal sealed class ShutdownRecord(ShutdownSpec spec, string caller, bool isFinal)
{
    public ShutdownSpec Spec => spec;

    public string Caller => caller;

    /// <summary>The test's own drain at the end of every program (not part of the program).</summary>
    public bool IsFinal => isFinal;

    public bool IsPool => spec.Target < 0;

    public long CallStartSeq { get; set; }

    public long? CancelSeq { get; set; }

    public long? ReturnSeq { get; set; }

    public ShutdownResult? Result { get; set; }

    /// <summary>For a shutdown called on a worker: the call, run by the item the controller queued.</summary>
    public Action? Run { get; set; }

    /// <summary>For a shutdown called on a worker: completes once its task completed and <see cref="Result"/> is recorded.</summary>
    public Task? Recorded { get; set; }

    /// <summary>Whether the call may have returned before the items running then finished: a drain with a token.</summary>
    public bool MayReturnEarly => spec.Kind == ShutdownKind.CancelledDrain;

    /// <summary>When its abandon began, if it abandons: the call (Abandon) or the cancellation (a cancelled drain); else null.</summary>
    public long? AbandonSeq => spec.Kind switch
    {
        ShutdownKind.Abandon => CallStartSeq,
        ShutdownKind.CancelledDrain => CancelSeq ?? CallStartSeq,
        _ => null,
    };

    public string Describe() =>
        $"{(isFinal ? "the test's final drain" : spec.ToCSharp().TrimEnd(';'))} (called on '{caller}')";
}
