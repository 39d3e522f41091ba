using System.Diagnostics;
using System.Globalization;

namespace SlimPool.Bench.Running;

/// <summary>
/// <c>--isolation process</c>, the default: every measured repetition in a fresh process of this program, so that
/// nothing one pool or scenario leaves behind (injected threads, hill-climbing state, spinning workers, a cap set
/// on the built-in pool, JIT state) touches the next. <c>--cpus N</c> starts the child under
/// <c>taskset -c 0-(N-1)</c>, so the runtime sees N cores (<see cref="Environment.ProcessorCount"/>) and both pools
/// size themselves for them.
/// </summary>
internal sealed class ChildProcessRunner : IRepetitionRunner
{
    private static readonly TimeSpan s_timeout = TimeSpan.FromMinutes(5);

    /// <summary>Throws <see cref="ArgumentException"/> when <c>--cpus</c> is asked for and <c>taskset</c> cannot be found.</summary>
    public static void RequireTaskset()
    {
        string[] path = (Environment.GetEnvironmentVariable("PATH") ?? "").Split(Path.PathSeparator, StringSplitOptions.RemoveEmptyEntries);
        if (!path.Any(directory => File.Exists(Path.Combine(directory, "taskset"))))
        {
            throw new ArgumentException("--cpus needs taskset (Debian's util-linux), which is not on PATH");
        }
    }

    public Measurement Run(ChildRequest request, int? cpus)
    {
        ProcessStartInfo start = StartInfo(cpus);
        using Process child = Process.Start(start) ?? throw new InvalidOperationException("could not start a child process");
        Task<string> output = child.StandardOutput.ReadToEndAsync();
        Task<string> error = child.StandardError.ReadToEndAsync();
        child.StandardInput.WriteLine(ChildProtocol.Serialize(request));
        child.StandardInput.Close();
        if (!child.WaitForExit(s_timeout))
        {
            child.Kill(entireProcessTree: true);
            throw new TimeoutException($"{Describe(request)}: the child process did not finish within {s_timeout.TotalMinutes} minutes");
        }

        child.WaitForExit(); // drains the output readers
        if (child.ExitCode != 0)
        {
            throw new InvalidOperationException($"{Describe(request)}: the child process failed with exit code {child.ExitCode}: {error.Result.Trim()}");
        }

        return ChildProtocol.ParseOutput(output.Result);
    }

    private static string Describe(ChildRequest request) => $"{request.Scenario} {request.Case} on {request.Pool}";

    private static ProcessStartInfo StartInfo(int? cpus)
    {
        string host = Environment.ProcessPath ?? throw new InvalidOperationException("cannot find this program's path to start a child process");
        var arguments = new List<string>();
        // Under `dotnet SlimPool.Bench.dll` the process is the muxer and the program is its first argument.
        if (Path.GetFileNameWithoutExtension(host).Equals("dotnet", StringComparison.OrdinalIgnoreCase))
        {
            arguments.Add(typeof(ChildProcessRunner).Assembly.Location);
        }

        arguments.Add(ChildProtocol.Switch);
        string file = host;
        if (cpus is int n)
        {
            arguments.InsertRange(0, ["-c", string.Create(CultureInfo.InvariantCulture, $"0-{n - 1}"), host]);
            file = "taskset";
        }

        var start = new ProcessStartInfo(file)
        {
            RedirectStandardInput = true,
            RedirectStandardOutput = true,
            RedirectStandardError = true,
            UseShellExecute = false,
        };
        foreach (string argument in arguments)
        {
            start.ArgumentList.Add(argument);
        }

        // Tier-1 code (with PGO) for hot methods after the warm-up run instead of after a 100 ms quiet period, so
        // the measured run of a short-lived process runs the code a long-lived one would.
        start.Environment["DOTNET_TC_CallCountingDelayMs"] = "0";
        return start;
    }
}
