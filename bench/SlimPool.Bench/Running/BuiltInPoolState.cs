namespace SlimPool.Bench.Running;

/// <summary>
/// The built-in pool's state around a measured run: its thread count and completed-item count just before and just
/// after, read in the process that measured. On the reference's rows this is what tells its fast mode from its slow
/// one; on other rows it shows what the built-in pool did meanwhile (Akka's and the async scenarios' timers use it).
/// </summary>
/// <param name="ThreadsBefore"><see cref="ThreadPool.ThreadCount"/> before the measured run.</param>
/// <param name="ThreadsAfter"><see cref="ThreadPool.ThreadCount"/> after it.</param>
/// <param name="CompletedBefore"><see cref="ThreadPool.CompletedWorkItemCount"/> before it.</param>
/// <param name="CompletedAfter"><see cref="ThreadPool.CompletedWorkItemCount"/> after it.</param>
internal sealed record BuiltInPoolState(int ThreadsBefore, int ThreadsAfter, long CompletedBefore, long CompletedAfter)
{
    /// <summary>Reads the counts now, as the "before" half.</summary>
    public static BuiltInPoolState Before() => new(ThreadPool.ThreadCount, 0, ThreadPool.CompletedWorkItemCount, 0);

    /// <summary>This state with the counts now as the "after" half.</summary>
    public BuiltInPoolState After() => this with { ThreadsAfter = ThreadPool.ThreadCount, CompletedAfter = ThreadPool.CompletedWorkItemCount };
}
