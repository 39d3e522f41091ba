namespace SlimPool.Bench.Running;

/// <summary>Runs one measured repetition somewhere: in a fresh child process, or in this process.</summary>
internal interface IRepetitionRunner
{
    /// <param name="request">What to run.</param>
    /// <param name="cpus">The number of cores the repetition may use (the first N), or null for all.</param>
    Measurement Run(ChildRequest request, int? cpus);
}
