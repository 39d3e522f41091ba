using System.Text.Json;

namespace SlimPool.Bench.Tests;

/// <summary>
/// Checks a JSON document against the subset of JSON Schema the results schema uses: <c>type</c> (one or a
/// list), <c>required</c>, <c>properties</c>, <c>items</c> and <c>enum</c>. Returns every violation found.
/// </summary>
internal static class MiniJsonSchema
{
    public static List<string> Validate(JsonElement schema, JsonElement value, string path = "$")
    {
        var errors = new List<string>();
        Check(schema, value, path, errors);
        return errors;
    }

    private static void Check(JsonElement schema, JsonElement value, string path, List<string> errors)
    {
        if (schema.TryGetProperty("type", out JsonElement type))
        {
            string[] allowed = type.ValueKind == JsonValueKind.Array ? [.. type.EnumerateArray().Select(t => t.GetString()!)] : [type.GetString()!];
            if (!allowed.Any(t => Matches(t, value)))
            {
                errors.Add($"{path}: expected {string.Join(" or ", allowed)}, got {value.ValueKind}");
                return;
            }
        }

        if (schema.TryGetProperty("enum", out JsonElement options) && !options.EnumerateArray().Any(o => o.ToString() == value.ToString()))
        {
            errors.Add($"{path}: {value} is not one of {options}");
        }

        if (value.ValueKind == JsonValueKind.Object)
        {
            if (schema.TryGetProperty("required", out JsonElement required))
            {
                foreach (JsonElement name in required.EnumerateArray())
                {
                    if (!value.TryGetProperty(name.GetString()!, out _))
                    {
                        errors.Add($"{path}: missing required property '{name.GetString()}'");
                    }
                }
            }

            if (schema.TryGetProperty("properties", out JsonElement properties))
            {
                foreach (JsonProperty property in properties.EnumerateObject())
                {
                    if (value.TryGetProperty(property.Name, out JsonElement child))
                    {
                        Check(property.Value, child, $"{path}.{property.Name}", errors);
                    }
                }
            }
        }

        if (value.ValueKind == JsonValueKind.Array && schema.TryGetProperty("items", out JsonElement items))
        {
            int index = 0;
            foreach (JsonElement element in value.EnumerateArray())
            {
                Check(items, element, $"{path}[{index++}]", errors);
            }
        }
    }

    private static bool Matches(string type, JsonElement value) => type switch
    {
        "object" => value.ValueKind == JsonValueKind.Object,
        "array" => value.ValueKind == JsonValueKind.Array,
        "string" => value.ValueKind == JsonValueKind.String,
        "number" => value.ValueKind == JsonValueKind.Number,
        "integer" => value.ValueKind == JsonValueKind.Number && value.TryGetInt64(out _),
        "boolean" => value.ValueKind is JsonValueKind.True or JsonValueKind.False,
        "null" => value.ValueKind == JsonValueKind.Null,
        _ => throw new NotSupportedException($"schema type '{type}'"),
    };
}
