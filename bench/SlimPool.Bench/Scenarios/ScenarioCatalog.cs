namespace SlimPool.Bench.Scenarios;

/// <summary>Every scenario, in the order a run shows them.</summary>
internal static class ScenarioCatalog
{
    public static IReadOnlyList<IScenario> All { get; } =
    [
        new QueueDrainScenario(),
        new TinyWorkScenario(),
        new SelfRequeueScenario(),
        new FanOutScenario(),
        new SerialQueuesScenario(),
        new SerialPingPongScenario(),
        new GroupsScaleScenario(),
        new RealWorkScenario(),
        new AsyncChainScenario(),
        new WakeLatencyScenario(),
        new IoLatencyScenario(),
        new ThreadCountScenario(),
        new IdleCpuScenario(),
        new NeighbourScenario(),
        new AkkaPingPongScenario(),
        new ProtoPingPongScenario(),
    ];

    public static IScenario? Find(string name) => All.FirstOrDefault(s => s.Name.Equals(name, StringComparison.OrdinalIgnoreCase));

    public static IReadOnlyList<IScenario> Select(IReadOnlyList<string>? names)
    {
        if (names is null || names.Count == 0 || (names.Count == 1 && names[0].Equals("all", StringComparison.OrdinalIgnoreCase)))
        {
            return All;
        }

        return [.. names.Select(name => Find(name)
            ?? throw new ArgumentException($"unknown scenario '{name}'; known scenarios: {string.Join(", ", All.Select(s => s.Name))}, all"))];
    }
}
