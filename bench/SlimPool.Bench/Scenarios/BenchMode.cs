namespace SlimPool.Bench.Scenarios;

/// <summary>The sizes of a run.</summary>
internal enum BenchMode
{
    /// <summary>The default: every scenario in under 6 minutes on 2 cores.</summary>
    Default,

    /// <summary><c>--quick</c>: a smoke run under a minute.</summary>
    Quick,

    /// <summary><c>--full</c>: the seeds' sizes.</summary>
    Full,
}
