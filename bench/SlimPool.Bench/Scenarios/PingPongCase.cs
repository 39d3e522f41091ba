namespace SlimPool.Bench.Scenarios;

/// <summary>
/// One case of the actor ping-pong scenarios (akka-pingpong, proto-pingpong): so many pairs bouncing
/// <see cref="BallsPerPair"/> messages each, so many times.
/// </summary>
internal sealed record PingPongCase(string Key, string Label, int Pairs, int Bounces) : BenchCase(Key, Label)
{
    /// <summary>Messages in flight per pair.</summary>
    public const int BallsPerPair = 50;

    /// <summary>
    /// 1, 4 × cores and 64 pairs (4 × cores alone in a quick run, the others extended), the same messages in all, each
    /// case with the extra pools and the note the scenario gives.
    /// </summary>
    public static IReadOnlyList<BenchCase> For(CaseContext context, string[] extraPools, string note)
    {
        int messages = context.Size(quick: 100_000, standard: 200_000, full: 10_000_000);
        int[] pairCounts = context.Mode == BenchMode.Quick ? [4 * context.Cores] : [1, 4 * context.Cores, 64]; // a smoke run: one case
        return [.. pairCounts.Distinct().Select(pairs => new PingPongCase(
            $"pairs-{pairs}",
            $"{pairs} actor pair{(pairs == 1 ? "" : "s")}, {BallsPerPair} messages in flight each, {messages:N0} messages",
            pairs,
            messages / (pairs * BallsPerPair))
        {
            Parameter = pairs,
            Extended = pairs != 4 * context.Cores,
            ExtraPools = extraPools,
            Note = note,
        })];
    }
}
