using System.Diagnostics;
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
        var start = new ProcessStartInfo(command[0])
        {
            RedirectStandardOutput = true,
            RedirectStandardError = true,
            UseShellExecute = false,
        };
        foreach (string argument in command.Skip(1))
        {
            start.ArgumentList.Add(argument);
        }

        foreach ((string key, string value) in environment ?? new Dictionary<string, string>())
        {
            start.Environment[key] = value;
        }

        using Process process = Process.Start(start)!;
        Task<string> output = process.StandardOutput.ReadToEndAsync();
        Task<string> error = process.StandardError.ReadToEndAsync();
        if (!process.WaitForExit(Bounded.Timeout))
        {
            process.Kill(entireProcessTree: true);
            Assert.Fail($"Timed out after {Bounded.Timeout.TotalSeconds} s waiting for the probe ({string.Join(' ', command)}).");
        }

        process.WaitForExit(); // the output's end
        string text = Bounded.Result(output, "the probe's output");
        Assert.True(process.ExitCode == 0, $"the probe exited with {process.ExitCode}: {text}{Bounded.Result(error, "the probe's errors")}");
        return text.Split('\n', StringSplitOptions.RemoveEmptyEntries | StringSplitOptions.TrimEntries)
            .Select(line => line.Split('=', 2))
            .Where(pair => pair.Length == 2)
            .ToDictionary(pair => pair[0], pair => pair[1]);
    }

    /// <summary>An integer the probe printed.</summary>
    public static int Int(this IReadOnlyDictionary<string, string> result, string key) =>
        int.Parse(result[key], CultureInfo.InvariantCulture);
}
