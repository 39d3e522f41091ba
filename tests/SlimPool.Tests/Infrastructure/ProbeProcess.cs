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
        int workers, double seconds, IReadOnlyDictionary<string, string>? environment = null, IReadOnlyList<string>? prefix = null)
    {
        string[] command =
        [
            .. prefix ?? [],
            "dotnet",
            Path.Combine(AppContext.BaseDirectory, "SlimPool.GuardProbe.dll"),
            "cpu-flood",
            workers.ToString(CultureInfo.InvariantCulture),
            seconds.ToString(CultureInfo.InvariantCulture),
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
