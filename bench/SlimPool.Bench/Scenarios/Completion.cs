using System.Runtime.InteropServices;

namespace SlimPool.Bench.Scenarios;

/// <summary>
/// Counts completed items of one run on its own cache line and sets <see cref="Done"/> when the last one
/// completes. Every pool pays the same one interlocked add per item for it.
/// </summary>
[StructLayout(LayoutKind.Sequential)]
internal class Completion(long target)
{
    private readonly long _target = target;
    private Padding _before;
    private long _completed;
    private Padding _after;

    public ManualResetEventSlim Done { get; } = new(false);

    public long Completed => Volatile.Read(ref _completed);

    public long Target => _target;

    public void Signal()
    {
        if (Interlocked.Increment(ref _completed) == _target)
        {
            Done.Set();
        }
    }

    public void Wait(string what) => ScenarioContext.Await(Done, what, () => $"{Completed:N0} of {_target:N0} items completed");

    [StructLayout(LayoutKind.Explicit, Size = 120)]
    private struct Padding
    {
    }
}
