using System.Diagnostics;

namespace SlimPool.Tests.Infrastructure;

/// <summary>Runs a command to its end within <see cref="Bounded.Timeout"/>, failing the test if it fails or hangs.</summary>
internal static class ChildProcess
{
    /// <summary>Runs <paramref name="command"/> with <paramref name="environment"/> added to its own; returns its standard output.</summary>
    public static string Run(IReadOnlyList<string> command, string what, IReadOnlyDictionary<string, string>? environment = null)
    {
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
            Assert.Fail($"Timed out after {Bounded.Timeout.TotalSeconds} s waiting for {what} ({string.Join(' ', command)}).");
        }

        process.WaitForExit();
        string text = Bounded.Result(output, what);
        Assert.True(process.ExitCode == 0, $"{what} exited with {process.ExitCode}: {text}{Bounded.Result(error, what)}");
        return text;
    }
}
