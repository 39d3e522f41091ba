namespace SlimPool.Bench.Scenarios;

/// <summary>
/// A scenario that measures an Akka.NET dispatcher rather than a pool: each row of its tables is an executor,
/// configured in HOCON (see <see cref="Actors.AkkaExecutors"/>). The built-in pool's row is Akka's default executor
/// (the built-in pool with <c>preferLocal</c>); SlimPool's rows are SlimPool.Akka's executor with that row's options.
/// </summary>
internal interface IDispatcherScenario : IScenario
{
    /// <summary>Runs the case's warm-up and measured run on an actor system whose default dispatcher is <paramref name="dispatcherHocon"/>.</summary>
    Running.Measurement MeasureOnDispatcher(BenchCase benchCase, string dispatcherHocon);
}
