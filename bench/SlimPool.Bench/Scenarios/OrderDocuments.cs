using System.Text.Json;

namespace SlimPool.Bench.Scenarios;

/// <summary>Deterministic test data for real-work: serialized orders and byte buffers.</summary>
internal static class OrderDocuments
{
    public static byte[][] Create(int count, int seed)
    {
        var random = new Random(seed);
        var documents = new byte[count][];
        for (int i = 0; i < count; i++)
        {
            var lines = new List<OrderLine>();
            for (int l = random.Next(1, 4); l > 0; l--)
            {
                lines.Add(new OrderLine($"SKU-{random.Next(10_000):D5}", random.Next(1, 10), random.Next(100, 10_000) / 100m));
            }

            var order = new Order(random.NextInt64(1, long.MaxValue), $"customer-{random.Next(100_000)}", new DateTime(2026, 1, 1, 0, 0, 0, DateTimeKind.Utc).AddMinutes(random.Next(500_000)), lines, i % 3 == 0 ? "leave at the door" : null);
            documents[i] = JsonSerializer.SerializeToUtf8Bytes(order, OrderJsonContext.Default.Order);
        }

        return documents;
    }

    public static byte[] Bytes(int length, int seed)
    {
        var bytes = new byte[length];
        new Random(seed).NextBytes(bytes);
        return bytes;
    }
}
