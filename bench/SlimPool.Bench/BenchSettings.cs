namespace SlimPool.Bench;

/// <summary>What the user asked for on the command line, validated.</summary>
internal sealed record BenchSettings
{
    public bool Quick { get; init; }

    public bool Full { get; init; }

    public int Repeat { get; init; } = 5;

    /// <summary>Worker counts: thread-count uses them all (default 2, 25, 200); other scenarios use a single one.</summary>
    public IReadOnlyList<int>? Workers { get; init; }

    public IReadOnlyList<string>? Pools { get; init; }

    public IReadOnlyList<string>? Scenarios { get; init; }

    public IReadOnlyList<int>? Ticks { get; init; }

    public string? JsonPath { get; init; }

    public string? ChartPath { get; init; }

    /// <summary>The SlimPool worker count for scenarios other than thread-count: the one given, else the pool's default.</summary>
    public int? SingleWorkerCount => Workers is { Count: 1 } one ? one[0] : null;

    /// <summary>Throws <see cref="ArgumentException"/> with a one-line message when the settings do not make sense.</summary>
    public void Validate()
    {
        if (Quick && Full)
        {
            throw new ArgumentException("--quick and --full cannot be combined");
        }

        if (Repeat < 1)
        {
            throw new ArgumentException($"--repeat must be at least 1, got {Repeat}");
        }

        foreach (int workers in Workers ?? [])
        {
            if (workers is < 1 or > SlimThreadPoolOptions.MaxWorkerCount)
            {
                throw new ArgumentException($"--workers must be between 1 and {SlimThreadPoolOptions.MaxWorkerCount}, got {workers}");
            }
        }

        foreach (int ticks in Ticks ?? [])
        {
            if (ticks < 0)
            {
                throw new ArgumentException($"--ticks must not be negative, got {ticks}");
            }
        }
    }
}
