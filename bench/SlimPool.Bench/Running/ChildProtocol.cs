using System.Text.Json;
using System.Text.Json.Serialization;

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

    private static readonly JsonSerializerOptions s_options = new()
    {
        Converters = { new JsonStringEnumConverter() },
        NumberHandling = JsonNumberHandling.AllowNamedFloatingPointLiterals,
    };

    public static string Serialize<T>(T value) => JsonSerializer.Serialize(value, s_options);

    public static T Deserialize<T>(string json) =>
        JsonSerializer.Deserialize<T>(json, s_options) ?? throw new InvalidDataException($"empty {typeof(T).Name}");

    /// <summary>The child's entry: read the request, measure, print the result line.</summary>
    public static int RunChild(TextReader input, TextWriter output, TextWriter error)
    {
        string? line = input.ReadLine();
        if (line is null)
        {
            error.WriteLine("child: no request on standard input");
            return 2;
        }

        Measurement measurement = InProcessRunner.Execute(Deserialize<ChildRequest>(line));
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
                return Deserialize<Measurement>(line[ResultPrefix.Length..].Trim());
            }
        }

        throw new InvalidDataException("the child process wrote no result line");
    }
}
