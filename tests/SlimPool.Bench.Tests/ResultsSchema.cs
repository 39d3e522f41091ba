using NJsonSchema;
using NJsonSchema.Validation;

namespace SlimPool.Bench.Tests;

/// <summary>The comparison program's <c>results.schema.json</c>, loaded once with NJsonSchema.</summary>
internal static class ResultsSchema
{
    private static readonly Lazy<JsonSchema> s_schema = new(() =>
        JsonSchema.FromJsonAsync(File.ReadAllText(Path.Combine(AppContext.BaseDirectory, "results.schema.json"))).GetAwaiter().GetResult());

    /// <summary>Every violation of the schema in <paramref name="json"/> as "Kind: path", innermost first found; empty when valid.</summary>
    public static IReadOnlyList<string> Validate(string json) => [.. Flatten(s_schema.Value.Validate(json))];

    // NJsonSchema nests the errors inside an array item under one ArrayItemNotValid error.
    private static IEnumerable<string> Flatten(IEnumerable<ValidationError> errors)
    {
        foreach (ValidationError error in errors)
        {
            if (error is ChildSchemaValidationError child)
            {
                foreach (string inner in child.Errors.Values.SelectMany(Flatten))
                {
                    yield return inner;
                }
            }
            else
            {
                yield return $"{error.Kind}: {error.Path}";
            }
        }
    }
}
