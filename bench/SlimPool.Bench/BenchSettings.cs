using SlimPool.Bench.Running;
using SlimPool.Bench.Scenarios;

namespace SlimPool.Bench;

/// <summary>What the user asked for on the command line, validated.</summary>
internal sealed record BenchSettings
{
    /// <summary>The default run's least repetitions per pool and cell, before the interval may stop a cell.</summary>
    public const int DefaultMinRepeat = 5;

    /// <summary>The default run's most repetitions per pool and cell.</summary>
    public const int DefaultMaxRepeat = 10;

    public const int QuickMinRepeat = 3;

    public const int QuickMaxRepeat = 3;

    /// <summary>A cell stops once every ratio's 95% interval lies within this fraction of the ratio either side.</summary>
    public const double DefaultTargetHalfWidth = 0.05;

    public BenchMode Mode { get; init; }

    /// <summary>Whether the default run also runs the cases it leaves out (<see cref="Scenarios.BenchCase.Extended"/>); <c>--full</c> always does.</summary>
    public bool AllCases { get; init; }

    /// <summary>
    /// Measured repetitions per pool and cell, each after its own warm-up: at least <see cref="MinRepeat"/>, then
    /// one more at a time until every ratio's interval is within <see cref="TargetHalfWidth"/> or
    /// <see cref="MaxRepeat"/> are done. <c>--repeat N</c> sets both to N.
    /// </summary>
    public int MinRepeat { get; init; } = DefaultMinRepeat;

    /// <inheritdoc cref="MinRepeat"/>
    public int MaxRepeat { get; init; } = DefaultMaxRepeat;

    /// <summary>The interval's half-width, as a fraction of the ratio, that stops a cell early.</summary>
    public double TargetHalfWidth { get; init; } = DefaultTargetHalfWidth;

    /// <summary>The repetitions in words: "5 to 10 (stopping at ±5%)" or "10".</summary>
    public string RepeatText => MinRepeat == MaxRepeat
        ? $"{MaxRepeat}"
        : $"{MinRepeat} to {MaxRepeat} (a cell stops once every ratio's 95% interval is within ±{TargetHalfWidth:P0})";

    /// <summary>Each repetition in a fresh child process (the default), or all in this process.</summary>
    public Isolation Isolation { get; init; } = Isolation.Process;

    /// <summary>Core counts to run each cell with (<c>--cpus</c>); null for the machine's.</summary>
    public IReadOnlyList<int>? Cpus { get; init; }

    /// <summary>thread-count's worker counts; null for its defaults.</summary>
    public IReadOnlyList<int>? Workers { get; init; }

    public IReadOnlyList<string>? Pools { get; init; }

    public IReadOnlyList<string>? Scenarios { get; init; }

    /// <summary>tiny-work's work per item in µs; null for its defaults.</summary>
    public IReadOnlyList<double>? WorkSizes { get; init; }

    /// <summary>Whether the user listed cases (<c>--work</c> or <c>--workers</c>): a quick run then runs them all, with their extra rows.</summary>
    public bool ListsCases => WorkSizes is not null || Workers is not null;

    public string? JsonPath { get; init; }

    /// <summary>The folder for the charts (PNG and SVG); null or empty for none.</summary>
    public string? ChartDirectory { get; init; }

    /// <summary>Where to write the summary table as Markdown (what the README shows); null or empty for none.</summary>
    public string? MarkdownPath { get; init; }

    /// <summary>Throws <see cref="ArgumentException"/> with a one-line message when the settings do not make sense.</summary>
    public void Validate()
    {
        if (MinRepeat < 1 || MaxRepeat < MinRepeat)
        {
            throw new ArgumentException($"--repeat must be at least 1, got {MinRepeat}");
        }

        foreach (int workers in Workers ?? [])
        {
            if (workers is < 1 or > SlimThreadPoolOptions.MaxWorkerCount)
            {
                throw new ArgumentException($"--workers must be between 1 and {SlimThreadPoolOptions.MaxWorkerCount}, got {workers}");
            }
        }

        foreach (double size in WorkSizes ?? [])
        {
            if (size is <= 0 or > 1_000_000 || double.IsNaN(size))
            {
                throw new ArgumentException($"--work needs sizes above 0 and at most 1,000,000 µs, got {size}");
            }
        }

        foreach (int cpus in Cpus ?? [])
        {
            if (cpus < 1)
            {
                throw new ArgumentException($"--cpus must be at least 1, got {cpus}");
            }
        }

        if (Cpus is not null && Isolation != Isolation.Process)
        {
            throw new ArgumentException("--cpus needs --isolation process: a process's cores are set when it starts");
        }
    }
}
