using System.Runtime;
using System.Runtime.InteropServices;
using System.Text.Json;
using SlimPool.Bench.Running;

namespace SlimPool.Bench.Reporting;

/// <summary>
/// Writes a run as JSON: the machine, the settings, the work loop's calibration, and one record per scenario ×
/// case × core count × pool with every repetition, the median, the ratio to the reference with its interval and the
/// verdict; the reference's modes (ratios are taken against the fast one) and the built-in pool's threads around each
/// repetition. Described by <c>results.schema.json</c> next to the program (tests validate the output against it).
/// </summary>
internal static class ResultsJson
{
    public const int SchemaVersion = 3;

    public static void Write(string path, BenchReport report)
    {
        string? directory = Path.GetDirectoryName(Path.GetFullPath(path));
        if (directory is not null)
        {
            Directory.CreateDirectory(directory);
        }

        using FileStream stream = File.Create(path);
        Write(stream, report);
    }

    public static void Write(Stream stream, BenchReport report)
    {
        using var json = new Utf8JsonWriter(stream, new JsonWriterOptions { Indented = true });
        json.WriteStartObject();
        json.WriteNumber("schemaVersion", SchemaVersion);
        json.WriteString("createdUtc", DateTime.UtcNow);
        json.WriteStartObject("machine");
        json.WriteString("runtime", Environment.Version.ToString());
        json.WriteString("framework", RuntimeInformation.FrameworkDescription);
        json.WriteString("os", RuntimeInformation.OSDescription);
        json.WriteString("cpu", MachineInfo.CpuModel());
        json.WriteNumber("cores", Environment.ProcessorCount);
        json.WriteString("gcMode", GCSettings.IsServerGC ? "server" : "workstation");
        json.WriteBoolean("gcConcurrent", MachineInfo.IsConcurrentGC);
        json.WriteEndObject();
        json.WriteStartObject("settings");
        json.WriteString("mode", report.Settings.Mode.ToString().ToLowerInvariant());
        json.WriteNumber("minRepeat", report.Settings.MinRepeat);
        json.WriteNumber("maxRepeat", report.Settings.MaxRepeat);
        json.WriteNumber("targetHalfWidth", report.Settings.TargetHalfWidth);
        json.WriteString("isolation", report.Settings.Isolation == Isolation.Process ? "process" : "inproc");
        json.WriteNumber("workLoopNsPerIteration", report.NanosecondsPerIteration);
        json.WriteNumber("elapsedSeconds", Math.Round(report.Elapsed.TotalSeconds, 1));
        json.WriteEndObject();
        json.WriteStartArray("results");
        foreach (CaseResult result in report.Results)
        {
            foreach (PoolResult pool in result.Pools)
            {
                WriteRecord(json, result, pool);
            }
        }

        json.WriteEndArray();
        json.WriteEndObject();
    }

    private static void WriteRecord(Utf8JsonWriter json, CaseResult result, PoolResult pool)
    {
        json.WriteStartObject();
        json.WriteString("scenario", result.Scenario);
        json.WriteString("case", result.Key);
        json.WriteString("label", result.Case);
        if (result.Cpus is int cpus)
        {
            json.WriteNumber("cpus", cpus);
        }
        else
        {
            json.WriteNull("cpus");
        }

        json.WriteString("caps", result.Caps);
        json.WriteNumber("cellSeconds", Math.Round(result.Elapsed.TotalSeconds, 2));
        json.WriteString("pool", pool.Pool);
        json.WriteBoolean("reference", pool.IsReference);
        Metric primary = pool.Metrics[0];
        json.WriteString("metric", primary.Name);
        json.WriteString("unit", primary.Unit);
        json.WriteStartArray("repetitions");
        foreach (double sample in primary.Samples)
        {
            json.WriteNumberValue(sample);
        }

        json.WriteEndArray();
        json.WriteNumber("median", primary.Stats.Median);
        if (pool.Comparison is { } c)
        {
            json.WriteNumber("ratio", c.Ratio);
            json.WriteNumber("ratioLow", c.Low);
            json.WriteNumber("ratioHigh", c.High);
            json.WriteNumber("confidence", c.Confidence);
            json.WriteString("verdict", Text.Verdict(c.Verdict));
        }
        else
        {
            json.WriteNull("ratio");
            json.WriteNull("ratioLow");
            json.WriteNull("ratioHigh");
            json.WriteNull("confidence");
            json.WriteNull("verdict");
        }

        WriteModes(json, pool.Modes);
        WriteBuiltInPool(json, pool.BuiltInPool);
        json.WriteStartArray("metrics");
        foreach (Metric metric in pool.Metrics)
        {
            Stats stats = metric.Stats;
            json.WriteStartObject();
            json.WriteString("name", metric.Name);
            json.WriteString("unit", metric.Unit);
            json.WriteNumber("median", stats.Median);
            json.WriteNumber("min", stats.Min);
            json.WriteNumber("max", stats.Max);
            json.WriteStartArray("samples");
            foreach (double sample in metric.Samples)
            {
                json.WriteNumberValue(sample);
            }

            json.WriteEndArray();
            json.WriteEndObject();
        }

        json.WriteEndArray();
        json.WriteEndObject();
    }

    private static void WriteModes(Utf8JsonWriter json, ModeSplit? modes)
    {
        if (modes is null)
        {
            json.WriteNull("modes");
            return;
        }

        json.WriteStartObject("modes");
        json.WriteBoolean("bimodal", modes.IsBimodal);
        WriteMode(json, "fast", modes.Fast);
        if (modes.IsBimodal)
        {
            WriteMode(json, "slow", modes.Slow);
        }
        else
        {
            json.WriteNull("slow");
        }

        json.WriteEndObject();
    }

    private static void WriteMode(Utf8JsonWriter json, string name, IReadOnlyList<double> samples)
    {
        json.WriteStartObject(name);
        json.WriteNumber("count", samples.Count);
        json.WriteNumber("median", Stats.Of(samples).Median);
        json.WriteStartArray("repetitions");
        foreach (double sample in samples)
        {
            json.WriteNumberValue(sample);
        }

        json.WriteEndArray();
        json.WriteEndObject();
    }

    private static void WriteBuiltInPool(Utf8JsonWriter json, IReadOnlyList<BuiltInPoolState?> states)
    {
        json.WriteStartArray("builtInPool");
        foreach (BuiltInPoolState? state in states)
        {
            if (state is null)
            {
                json.WriteNullValue();
                continue;
            }

            json.WriteStartObject();
            json.WriteNumber("threadsBefore", state.ThreadsBefore);
            json.WriteNumber("threadsAfter", state.ThreadsAfter);
            json.WriteNumber("completedBefore", state.CompletedBefore);
            json.WriteNumber("completedAfter", state.CompletedAfter);
            json.WriteEndObject();
        }

        json.WriteEndArray();
    }
}
