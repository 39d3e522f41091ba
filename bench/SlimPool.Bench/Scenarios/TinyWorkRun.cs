using System.Runtime.InteropServices;

namespace SlimPool.Bench.Scenarios;

/// <summary>One tiny-work run: the work size, the item count, and a completion counter on its own cache line.</summary>
[StructLayout(LayoutKind.Sequential)]
internal sealed class TinyWorkRun(int ticks, int items)
{
    private readonly int _ticks = ticks;
    private readonly int _items = items;
    private Padding _before;
    private long _completed;
    private Padding _after;

    public ManualResetEventSlim Done { get; } = new(false);

    public long Completed => Volatile.Read(ref _completed);

    public void Execute()
    {
        FakeProcessorWork.Spin(_ticks);
        if (Interlocked.Increment(ref _completed) == _items)
        {
            Done.Set();
        }
    }

    [StructLayout(LayoutKind.Explicit, Size = 120)]
    private struct Padding
    {
    }
}
