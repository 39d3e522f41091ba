namespace SlimPool.Bench.Pools;

/// <summary>A pool the comparison program can create: a short name for tables, a description, a factory.</summary>
/// <param name="Name">The short name shown in tables and accepted by <c>--pools</c>.</param>
/// <param name="Description">What the pool is.</param>
/// <param name="Create">Creates the pool; the argument is a worker count, or null for the pool's default.</param>
/// <param name="IsDefault">Whether a run without <c>--pools</c> includes it.</param>
internal sealed record PoolDefinition(string Name, string Description, Func<int?, IThreadPool> Create, bool IsDefault = true);
