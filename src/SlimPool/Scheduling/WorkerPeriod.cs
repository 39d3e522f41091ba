namespace SlimPool.Scheduling;

/// <summary>
/// What the workers' own CPU clocks said about one period of the starvation guard (<see cref="WorkerClocks"/>).
/// </summary>
/// <param name="Sampled">Live workers whose clocks were read at the period's end; -1 when this platform has no
/// per-thread clocks (the guard then uses the process's CPU time).</param>
/// <param name="Blocked">Of those, the workers that are blocked (<see cref="WorkerClocks"/>): not runnable now, and,
/// if busy through the period, runnable for less than <see cref="WorkerClocks.BlockedRunnableShare"/> of it. The rest
/// computed or waited for a CPU.</param>
internal readonly record struct WorkerPeriod(int Sampled, int Blocked)
{
    /// <summary>No per-thread clocks here.</summary>
    public static WorkerPeriod Unknown => new(-1, -1);

    /// <summary>Whether the clocks were read.</summary>
    public bool IsKnown => Sampled >= 0;
}
