using System.Diagnostics;

namespace SlimPool.Bench.Scenarios;

/// <summary>The seed's <c>fake_processor_work</c>: spin for a number of ticks, 1 tick = 100 ns, timed by <see cref="Stopwatch"/>.</summary>
internal static class FakeProcessorWork
{
    public const double NanosecondsPerTick = 100;

    private static readonly double s_timestampsPerTick = Stopwatch.Frequency * NanosecondsPerTick / 1e9;

    public static void Spin(int ticks)
    {
        if (ticks <= 0)
        {
            return;
        }

        long until = Stopwatch.GetTimestamp() + (long)(ticks * s_timestampsPerTick);
        while (Stopwatch.GetTimestamp() < until)
        {
        }
    }
}
