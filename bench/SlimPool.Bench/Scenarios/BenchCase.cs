using SlimPool.Bench.Pools;

namespace SlimPool.Bench.Scenarios;

/// <summary>One table of a scenario: its parameters, a key that finds it again in a child process, and how every pool is sized for it.</summary>
/// <param name="Key">Unique within the scenario; passed to child processes.</param>
/// <param name="Label">What the table's title says.</param>
internal record BenchCase(string Key, string Label)
{
    /// <summary>How every pool is sized for this case (a cap applies to both sides alike).</summary>
    public PoolSetup Setup { get; init; }

    /// <summary>A group of cases charted together (e.g. "capped"); null when none.</summary>
    public string? Variant { get; init; }

    /// <summary>The case's numeric parameter for charts (e.g. work per item in ns); null when none.</summary>
    public double? Parameter { get; init; }

    /// <summary>A line under the table: what the reader needs to read it right.</summary>
    public string? Note { get; init; }

    /// <summary>Pools this case runs besides those chosen (e.g. thread-count's naive pool).</summary>
    public IReadOnlyList<string> ExtraPools { get; init; } = [];

    /// <summary>
    /// A case the default run leaves out to keep within about five minutes; <c>--all-cases</c> and <c>--full</c> run it.
    /// Every scenario keeps at least one case that is not extended.
    /// </summary>
    public bool Extended { get; init; }

    /// <summary>The primary metric's resolution: smaller values are raised to it before ratios are taken.</summary>
    public double RatioFloor { get; init; } = 1e-9;

    /// <summary>The caps in words for the table, when <see cref="Setup"/> caps the pools.</summary>
    public string? Caps => Setup.MaxThreads is int max
        ? Setup.FixedThreads
            ? $"every pool given {max} threads (built-in: SetMinThreads and SetMaxThreads {max}, threads made on demand; SlimPool and Naive: {max} workers started)"
            : $"every pool capped at {max} threads (built-in: SetMaxThreads; SlimPool: MaxWorkers)"
        : Setup.Workers is int workers ? $"{workers} workers" : null;
}
