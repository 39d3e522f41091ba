namespace SlimPool.Tests.Infrastructure;

/// <summary>
/// Sizes for tests tagged <c>[Trait("Category", "Stress")]</c>: small in the default run, long when the
/// environment variable <c>SLIMPOOL_STRESS=1</c> is set.
/// </summary>
internal static class StressSize
{
    public static bool IsLong { get; } = Environment.GetEnvironmentVariable("SLIMPOOL_STRESS") == "1";

    public static int Pick(int quick, int longRun) => IsLong ? longRun : quick;
}
