using System.Text.Json.Serialization;

namespace SlimPool.Bench.Scenarios;

/// <summary>The JSON document real-work parses: an order with a few lines.</summary>
internal sealed record Order(long Id, string Customer, DateTime Placed, IReadOnlyList<OrderLine> Lines, string? Note);

/// <summary>One line of an <see cref="Order"/>.</summary>
internal sealed record OrderLine(string Sku, int Quantity, decimal Price);

/// <summary>System.Text.Json's source-generated serializer for <see cref="Order"/>: no reflection on the measured path.</summary>
[JsonSerializable(typeof(Order))]
[JsonSourceGenerationOptions(PropertyNamingPolicy = JsonKnownNamingPolicy.CamelCase)]
internal sealed partial class OrderJsonContext : JsonSerializerContext
{
}
