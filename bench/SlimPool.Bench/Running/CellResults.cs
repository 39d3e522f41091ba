using SlimPool.Bench.Pools;
using SlimPool.Bench.Reporting;
using SlimPool.Bench.Scenarios;

namespace SlimPool.Bench.Running;

/// <summary>
/// Turns a cell's repetitions, pool by pool, into a table: metrics per pool and each pool's comparison with the
/// reference's fast mode (<see cref="ModeSplit"/>).
/// </summary>
internal static class CellResults
{
    public static CaseResult Build(string scenario, BenchCase benchCase, int? cpus, IReadOnlyList<(PoolDefinition Pool, IReadOnlyList<Measurement> Samples)> rows)
    {
        // Every ratio is taken against the reference's fast mode: its best state (all of it when it has one mode).
        IReadOnlyList<double>? referenceSamples = rows.FirstOrDefault(r => r.Pool.IsReference).Samples?.Select(m => m.Primary.Value).ToArray();
        ModeSplit? modes = referenceSamples is null ? null : ModeSplit.Of(referenceSamples, benchCase.RatioFloor);
        IReadOnlyList<double>? reference = modes?.Fast;
        var pools = new List<PoolResult>();
        foreach ((PoolDefinition pool, IReadOnlyList<Measurement> samples) in rows)
        {
            MeasuredValue[] first = [.. samples[0].Values];
            var metrics = new List<Metric>();
            for (int i = 0; i < first.Length; i++)
            {
                metrics.Add(new Metric(first[i].Name, first[i].Unit, [.. samples.Select(s => s.Values[i].Value)], first[i].Format));
            }

            Comparison? comparison = reference is null || pool.IsReference
                ? null
                : RatioEstimator.Compare(metrics[0].Samples, reference, benchCase.RatioFloor);
            pools.Add(new PoolResult(pool.Name, metrics)
            {
                IsReference = pool.IsReference,
                Comparison = comparison,
                Modes = pool.IsReference ? modes : null,
                BuiltInPool = [.. samples.Select(s => s.BuiltInPool)],
            });
        }

        return new CaseResult(scenario, benchCase.Key, benchCase.Label, pools, benchCase.Note)
        {
            Variant = benchCase.Variant,
            Parameter = benchCase.Parameter,
            Cpus = cpus,
            Caps = benchCase.Caps,
        };
    }
}
