using Proto.Mailbox;

namespace SlimPool.Bench.Scenarios;

/// <summary>
/// A scenario that measures a Proto.Actor dispatcher rather than a pool: each row of its tables is an
/// <see cref="IDispatcher"/> (see <see cref="Actors.ProtoDispatchers"/>). The built-in pool's row is Proto's default
/// dispatcher; SlimPool's rows are SlimPool.ProtoActor's dispatcher over a pool with that row's options.
/// </summary>
internal interface IProtoDispatcherScenario : IScenario
{
    /// <summary>Runs the case's warm-up and measured run with every actor's mailbox on <paramref name="dispatcher"/>.</summary>
    Running.Measurement MeasureOnDispatcher(BenchCase benchCase, IDispatcher dispatcher);
}
