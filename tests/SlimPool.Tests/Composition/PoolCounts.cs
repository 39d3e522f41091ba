namespace SlimPool.Tests.Composition;

/// <summary>The pool's and its groups' counters, read once the program has settled.</summary>
internal sealed record PoolCounts(long Completed, long Cancelled, long Exceptions, long[] GroupCompleted, long[] GroupCancelled, long Slow);
