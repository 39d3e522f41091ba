namespace SlimPool.Bench.Running;

/// <summary>Where measured repetitions run.</summary>
internal enum Isolation
{
    /// <summary>Each in a fresh child process (<c>--isolation process</c>, the default).</summary>
    Process,

    /// <summary>All in the program's own process (<c>--isolation inproc</c>), for quick looks.</summary>
    InProcess,
}
