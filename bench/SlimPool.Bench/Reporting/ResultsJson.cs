using System.Runtime.InteropServices;
using System.Text.Json;

namespace SlimPool.Bench.Reporting;

/// <summary>
/// Writes every result as JSON: one record per scenario × case × pool with every repetition, described by
/// <c>results.schema.json</c> next to the program (tests validate the output against it).
/// </summary>
internal static class ResultsJson
{
    public const int SchemaVersion = 1;

    public static void Write(string path, BenchSettings settings, IReadOnlyList<CaseResult> results)
    {
        string? directory = Path.GetDirectoryName(Path.GetFullPath(path));
        if (directory is not null)
        {
            Directory.CreateDirectory(directory);
        }

        using FileStream stream = File.Create(path);
        Write(stream, settings, results);
    }

    public static void Write(Stream stream, BenchSettings settings, IReadOnlyList<CaseResult> results)
    {
        using var json = new Utf8JsonWriter(stream, new JsonWriterOptions { Indented = true });
        json.WriteStartObject();
        json.WriteNumber("schemaVersion", SchemaVersion);
        json.WriteString("createdUtc", DateTime.UtcNow);
        json.WriteStartObject("machine");
        json.WriteString("runtime", Environment.Version.ToString());
        json.WriteString("os", RuntimeInformation.OSDescription);
        json.WriteString("cpu", MachineInfo.CpuModel());
        json.WriteNumber("cores", Environment.ProcessorCount);
        json.WriteEndObject();
        json.WriteStartObject("settings");
        json.WriteString("mode", settings.Quick ? "quick" : settings.Full ? "full" : "default");
        json.WriteNumber("repeat", settings.Repeat);
        json.WriteEndObject();
        json.WriteStartArray("results");
        foreach (CaseResult result in results)
        {
            if (result.Pools.Count == 0)
            {
                WriteRecord(json, result, pool: null);
            }

            foreach (PoolResult pool in result.Pools)
            {
                WriteRecord(json, result, pool);
            }
        }

        json.WriteEndArray();
        json.WriteEndObject();
    }

    private static void WriteRecord(Utf8JsonWriter json, CaseResult result, PoolResult? pool)
    {
        json.WriteStartObject();
        json.WriteString("scenario", result.Scenario);
        json.WriteString("case", result.Case);
        json.WriteString("pool", pool?.Pool);
        if (result.Note is not null)
        {
            json.WriteString("note", result.Note);
        }

        if (pool is not null && result.Ratio(pool, Pools.PoolCatalog.BaselineName) is double ratio)
        {
            json.WriteNumber("ratioToThreadPool", ratio);
        }
        else
        {
            json.WriteNull("ratioToThreadPool");
        }

        json.WriteStartArray("metrics");
        foreach (Metric metric in pool?.Metrics ?? [])
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
}
