using System.Diagnostics;
using System.Runtime.CompilerServices;

namespace SlimPool.Bench.Work;

/// <summary>
/// Work per item as a fixed number of iterations of a known loop (a dependent chain of 64-bit multiply-adds the
/// JIT cannot fold or vectorize), so that every pool runs the same instructions, however it is scheduled. The
/// parent process calibrates the loop once and hands the same iteration counts to every child, so the amount of
/// work in a cell never depends on which process measured it.
/// </summary>
internal static class CpuWork
{
    private static long s_sink;

    /// <summary>Runs <paramref name="iterations"/> iterations of the loop.</summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static void Run(long iterations)
    {
        ulong x = (ulong)iterations | 1;
        for (long i = 0; i < iterations; i++)
        {
            x = (x * 6364136223846793005UL) + 1442695040888963407UL;
        }

        // One store per call keeps the chain live without a shared write per iteration.
        if (x == 0)
        {
            s_sink++;
        }
    }

    /// <summary>
    /// Nanoseconds one iteration takes on this thread: the fastest of several timed runs of 2 million iterations
    /// (about 2 ms each), so that an interruption makes a run slower and is discarded rather than averaged in.
    /// </summary>
    public static double CalibrateNanosecondsPerIteration()
    {
        const long Iterations = 2_000_000;
        Run(Iterations); // JIT and warm up
        double best = double.MaxValue;
        for (int i = 0; i < 15; i++)
        {
            long start = Stopwatch.GetTimestamp();
            Run(Iterations);
            best = Math.Min(best, Stopwatch.GetElapsedTime(start).TotalNanoseconds / Iterations);
        }

        return best;
    }

    /// <summary>The iterations that take about <paramref name="nanoseconds"/> at <paramref name="nanosecondsPerIteration"/>.</summary>
    public static long IterationsFor(double nanoseconds, double nanosecondsPerIteration) =>
        nanoseconds <= 0 ? 0 : Math.Max(1, (long)Math.Round(nanoseconds / nanosecondsPerIteration));
}
