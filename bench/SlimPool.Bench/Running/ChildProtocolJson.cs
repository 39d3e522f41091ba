using System.Text.Json.Serialization;

namespace SlimPool.Bench.Running;

/// <summary>
/// The source-generated serializer for the parent–child protocol: no reflection at a child's start, which every
/// measured repetition pays.
/// </summary>
[JsonSerializable(typeof(ChildRequest))]
[JsonSerializable(typeof(Measurement))]
[JsonSourceGenerationOptions(UseStringEnumConverter = true, NumberHandling = JsonNumberHandling.AllowNamedFloatingPointLiterals)]
internal sealed partial class ChildProtocolJson : JsonSerializerContext
{
}
