namespace SlimPool.Tests.Composition;

/// <summary>A broken promise: which check saw it, and what it saw.</summary>
internal sealed record Violation(string Check, string Message)
{
    public override string ToString() => $"[{Check}] {Message}";
}
