namespace SlimPool.Bench.Scenarios;

/// <summary>The shape of an io-latency run: how many items, how far apart, how long each blocks.</summary>
internal readonly record struct IoLatencyShape(int Items, int IntervalMs, int BlockMs);
