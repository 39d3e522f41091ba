using System.Diagnostics;
using System.Runtime;

namespace SlimPool.Bench.Running;

/// <summary>
/// Waits for the JIT to go quiet after a warm-up: tiered compilation recompiles hot methods at tier 1 on a background
/// thread, and on two cores that thread takes a core from whatever runs next. The built-in pool's code is mostly
/// precompiled (ReadyToRun) and SlimPool's is not, so a measured run that overlaps those compilations charges SlimPool
/// for its own JIT: a few percent on the long items of tiny-work.
/// </summary>
/// <remarks>
/// 30 ms of quiet is enough: the measured runs that follow compiled 0 to 4 methods with it, the same as with 100 ms
/// (queue-drain, tiny-work 1 µs and real-work json, on both pools), and a child's warm-up takes 150–700 ms instead of
/// 300–900 ms.
/// </remarks>
internal static class JitQuiescence
{
    private static readonly TimeSpan s_quietFor = TimeSpan.FromMilliseconds(30);
    private static readonly TimeSpan s_atMost = TimeSpan.FromSeconds(2);

    /// <summary>Returns once no method has been compiled for 30 ms, or after 2 s.</summary>
    public static void Wait()
    {
        var total = Stopwatch.StartNew();
        long count = JitInfo.GetCompiledMethodCount();
        var quiet = Stopwatch.StartNew();
        while (quiet.Elapsed < s_quietFor && total.Elapsed < s_atMost)
        {
            Thread.Sleep(10);
            long now = JitInfo.GetCompiledMethodCount();
            if (now != count)
            {
                count = now;
                quiet.Restart();
            }
        }
    }
}
