namespace SlimPool.Soak;

/// <summary>The exception a throwing soak item raises; the handler marks its ledger slot.</summary>
internal sealed class SoakFault(SoakRound round, int id) : Exception($"soak fault {id}")
{
    public SoakRound Round { get; } = round;

    public int Id { get; } = id;
}
