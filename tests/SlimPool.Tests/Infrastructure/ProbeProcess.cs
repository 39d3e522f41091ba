using System.Globalization;

namespace SlimPool.Tests.Infrastructure;

/// <summary>
/// Runs the guard's probe (<c>tests/SlimPool.GuardProbe</c>, built beside the tests) in a child process: a pool that
/// floods CPU-bound items under CPU limits this process cannot have. Its output is "key=value" lines.
/// </summary>
internal static class ProbeProcess
{
    /// <summary>
    /// Runs <c>cpu-flood</c>; <paramref name="environment"/> is added to the child's; <paramref name="prefix"/>, if
    /// given, is a command the child is started under (it gets the dotnet command line as its arguments).
    /// </summary>
    public static IReadOnlyDictionary<string, string> CpuFlood(
        int workers, double seconds, IReadOnlyDictionary<string, string>? environment = null, IReadOnlyList<string>? prefix = null,
        int starvationTimeoutMs = 50) =>
        Run("cpu-flood", workers, seconds, environment, prefix, starvationTimeoutMs);

    /// <summary>
    /// Runs <c>sleep-flood</c>: 64 items that block without a hint for <paramref name="seconds"/>, while the probe watches
    /// the pool grow; <paramref name="prefix"/> as for <see cref="CpuFlood"/>.
    /// </summary>
    public static IReadOnlyDictionary<string, string> SleepFlood(
        int workers, double seconds, IReadOnlyList<string>? prefix = null, int starvationTimeoutMs = 50) =>
        Run("sleep-flood", workers, seconds, environment: null, prefix, starvationTimeoutMs);

    private static IReadOnlyDictionary<string, string> Run(
        string mode, int workers, double seconds, IReadOnlyDictionary<string, string>? environment, IReadOnlyList<string>? prefix,
        int starvationTimeoutMs)
    {
        string[] command =
        [
            .. prefix ?? [],
            "dotnet",
            Path.Combine(AppContext.BaseDirectory, "SlimPool.GuardProbe.dll"),
            mode,
            workers.ToString(CultureInfo.InvariantCulture),
            seconds.ToString(CultureInfo.InvariantCulture),
            "1", // item-ms
            starvationTimeoutMs.ToString(CultureInfo.InvariantCulture),
        ];
        string text = ChildProcess.Run(command, "the probe", environment);
        return text.Split('\n', StringSplitOptions.RemoveEmptyEntries | StringSplitOptions.TrimEntries)
            .Select(line => line.Split('=', 2))
            .Where(pair => pair.Length == 2)
            .ToDictionary(pair => pair[0], pair => pair[1]);
    }

    /// <summary>An integer the probe printed.</summary>
    public static int Int(this IReadOnlyDictionary<string, string> result, string key) =>
        int.Parse(result[key], CultureInfo.InvariantCulture);
}
