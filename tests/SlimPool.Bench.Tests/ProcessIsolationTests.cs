using System.Diagnostics;
using System.Text.Json;

namespace SlimPool.Bench.Tests;

/// <summary>The comparison program end to end: a tiny scenario, every repetition in its own child process.</summary>
public sealed class ProcessIsolationTests
{
    private static readonly TimeSpan s_timeout = TimeSpan.FromMinutes(4);

    [Fact]
    public void Program_CappedScenariosInChildProcesses_WriteResultsChartsAndSummary()
    {
        string directory = Path.Combine(Path.GetTempPath(), "slimpool-bench-" + Guid.NewGuid().ToString("N"));
        try
        {
            string json = Path.Combine(directory, "results.json");
            string markdown = Path.Combine(directory, "summary.md");
            (int exitCode, string output) = RunProgram(
                "--quick", "--scenario", "thread-count,io-latency", "--workers", "2", "--repeat", "4", "--isolation", "process",
                "--json", json, "--charts", directory, "--markdown", markdown);

            Assert.True(exitCode == 0, output);
            string text = File.ReadAllText(json);
            Assert.Empty(ResultsSchema.Validate(text));
            JsonElement root = JsonDocument.Parse(text).RootElement;
            Assert.Equal("process", root.GetProperty("settings").GetProperty("isolation").GetString());
            JsonElement[] all = [.. root.GetProperty("results").EnumerateArray()];
            JsonElement[] records = [.. all.Where(r => r.GetProperty("scenario").GetString() == "thread-count")];
            Assert.Equal(["ThreadPool", "SlimPool", "Naive"], records.Select(r => r.GetProperty("pool").GetString()));
            JsonElement[] latency = [.. all.Where(r => r.GetProperty("scenario").GetString() == "io-latency")];
            Assert.Equal(4, latency.Length); // blocking and blocking-hinted (quick), two pools each
            Assert.All(latency, r => Assert.StartsWith("every pool capped at 10 threads", r.GetProperty("caps").GetString(), StringComparison.Ordinal));
            foreach (JsonElement record in records)
            {
                Assert.Equal(4, record.GetProperty("repetitions").GetArrayLength());
                Assert.All(record.GetProperty("repetitions").EnumerateArray(), r => Assert.True(r.GetDouble() > 0));
                Assert.StartsWith("every pool given 2 threads", record.GetProperty("caps").GetString(), StringComparison.Ordinal);
            }

            Assert.Contains(records[1].GetProperty("verdict").GetString(), new[] { "win", "tie", "loss" });
            Assert.True(File.Exists(Path.Combine(directory, "ratios.png")), output);
            Assert.True(File.Exists(Path.Combine(directory, "ratios.svg")), output);
            Assert.Contains("| thread-count | 2-threads |", File.ReadAllText(markdown), StringComparison.Ordinal);
        }
        finally
        {
            if (Directory.Exists(directory))
            {
                Directory.Delete(directory, recursive: true);
            }
        }
    }

    [Fact]
    public void Program_BadOption_ExitsWithTwoAndNamesIt()
    {
        (int exitCode, string output) = RunProgram("--isolation", "thread");

        Assert.Equal(2, exitCode);
        Assert.Contains("--isolation", output, StringComparison.Ordinal);
    }

    private static (int ExitCode, string Output) RunProgram(params string[] arguments)
    {
        var start = new ProcessStartInfo("dotnet")
        {
            RedirectStandardOutput = true,
            RedirectStandardError = true,
            UseShellExecute = false,
        };
        start.ArgumentList.Add(Path.Combine(AppContext.BaseDirectory, "SlimPool.Bench.dll"));
        foreach (string argument in arguments)
        {
            start.ArgumentList.Add(argument);
        }

        using Process process = Process.Start(start)!;
        Task<string> output = process.StandardOutput.ReadToEndAsync();
        Task<string> error = process.StandardError.ReadToEndAsync();
        if (!process.WaitForExit(s_timeout))
        {
            process.Kill(entireProcessTree: true);
            Assert.Fail($"the comparison program did not finish within {s_timeout}: {output.Result}");
        }

        process.WaitForExit();
        return (process.ExitCode, output.Result + error.Result);
    }
}
