namespace SlimPool.Tests.Infrastructure;

/// <summary>The exactly-once check of a queue stress test: a count per entry of the times it was taken.</summary>
internal static class TakenOnce
{
    /// <summary>Fails naming a few entries whose count is not 1.</summary>
    public static void AssertEach(int[] ledger)
    {
        int[] wrong = [.. Enumerable.Range(0, ledger.Length).Where(i => ledger[i] != 1)];
        Assert.True(wrong.Length == 0, $"{wrong.Length} entries taken other than once, e.g. {string.Join(", ", wrong.Take(5).Select(i => $"#{i} x{ledger[i]}"))}");
    }
}
