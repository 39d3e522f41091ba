using System.Text.Json;

namespace SlimPool.Bench.Running;

/// <summary>
/// How a parent and a child process talk: the parent starts the program with <see cref="Switch"/> and writes one
/// JSON <see cref="ChildRequest"/> line to its standard input; the child measures and writes one line, the
/// <see cref="ResultPrefix"/> and a JSON <see cref="Measurement"/>, to its standard output.
/// </summary>
internal static class ChildProtocol
{
    public const string Switch = "--child";

    public const string ResultPrefix = "slimpool-bench-result:";

    public static string Serialize(ChildRequest request) => JsonSerializer.Serialize(request, ChildProtocolJson.Default.ChildRequest);

    public static string Serialize(Measurement measurement) => JsonSerializer.Serialize(measurement, ChildProtocolJson.Default.Measurement);

    public static ChildRequest DeserializeRequest(string json) =>
        JsonSerializer.Deserialize(json, ChildProtocolJson.Default.ChildRequest) ?? throw new InvalidDataException("empty request");

    public static Measurement DeserializeMeasurement(string json) =>
        JsonSerializer.Deserialize(json, ChildProtocolJson.Default.Measurement) ?? throw new InvalidDataException("empty measurement");

    /// <summary>The child's entry: read the request, measure, print the result line.</summary>
    public static int RunChild(TextReader input, TextWriter output, TextWriter error)
    {
        string? line = input.ReadLine();
        if (line is null)
        {
            error.WriteLine("child: no request on standard input");
            return 2;
        }

        Measurement measurement = InProcessRunner.Execute(DeserializeRequest(line));
        output.WriteLine(ResultPrefix + Serialize(measurement));
        output.Flush();
        return 0;
    }

    /// <summary>Finds the result line in a child's output.</summary>
    public static Measurement ParseOutput(string output)
    {
        foreach (string line in output.Split('\n'))
        {
            if (line.StartsWith(ResultPrefix, StringComparison.Ordinal))
            {
                return DeserializeMeasurement(line[ResultPrefix.Length..].Trim());
            }
        }

        throw new InvalidDataException("the child process wrote no result line");
    }
}
