using SlimPool.Bench.Pools;
using SlimPool.Bench.Scenarios;

namespace SlimPool.Bench.Running;

/// <summary>
/// <c>--isolation inproc</c>: every repetition in this process, one after another. Quick, but the built-in pool
/// keeps what earlier repetitions did to it (injected threads, hill-climbing state): for quick looks only.
/// </summary>
internal sealed class InProcessRunner : IRepetitionRunner
{
    public Measurement Run(ChildRequest request, int? cpus)
    {
        if (cpus is not null)
        {
            throw new ArgumentException("--cpus needs --isolation process");
        }

        // A case that caps the built-in pool caps it for the whole process: put its limits back for the next one.
        ThreadPool.GetMinThreads(out int minWorkers, out int minIo);
        ThreadPool.GetMaxThreads(out int maxWorkers, out int maxIo);
        try
        {
            return Execute(request);
        }
        finally
        {
            ThreadPool.SetMaxThreads(maxWorkers, maxIo);
            ThreadPool.SetMinThreads(minWorkers, minIo);
        }
    }

    /// <summary>Finds the request's scenario, case and pool and measures; what a child process runs too.</summary>
    public static Measurement Execute(ChildRequest request)
    {
        IScenario scenario = ScenarioCatalog.Find(request.Scenario) ?? throw new ArgumentException($"unknown scenario '{request.Scenario}'");
        BenchCase benchCase = scenario.Cases(request.Context).FirstOrDefault(c => c.Key == request.Case)
            ?? throw new ArgumentException($"scenario '{request.Scenario}' has no case '{request.Case}'");
        PoolDefinition pool = PoolCatalog.Find(request.Pool) ?? throw new ArgumentException($"unknown pool '{request.Pool}'");
        return pool.Measure(scenario, benchCase, benchCase.Setup);
    }
}
