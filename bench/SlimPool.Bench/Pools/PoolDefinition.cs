using SlimPool.Bench.Actors;
using SlimPool.Bench.Running;
using SlimPool.Bench.Scenarios;

namespace SlimPool.Bench.Pools;

/// <summary>
/// A pool the comparison program can run: a name for tables and <c>--pools</c>, a description, and how to run
/// one scenario case on a fresh instance of it, through the pool's own driver.
/// </summary>
internal abstract class PoolDefinition(string name, string description, bool isDefault)
{
    /// <summary>The short name shown in tables and accepted by <c>--pools</c>.</summary>
    public string Name { get; } = name;

    public string Description { get; } = description;

    /// <summary>Whether a run without <c>--pools</c> includes it.</summary>
    public bool IsDefault { get; } = isDefault;

    /// <summary>Whether this is the built-in pool at its best, the row every ratio divides by.</summary>
    public virtual bool IsReference => false;

    /// <summary>Creates the pool as <paramref name="setup"/> says, runs the case's warm-up and measured run on it, and disposes it.</summary>
    public abstract Measurement Measure(IScenario scenario, BenchCase benchCase, PoolSetup setup);

    /// <summary>
    /// Whether this row can run <paramref name="scenario"/>: pool drivers run the pool scenarios, Akka executors the
    /// Akka scenarios, Proto.Actor dispatchers the Proto scenarios, and the reference and SlimPool rows all of them (as
    /// Akka's default executor and SlimPool.Akka's, Proto's default dispatcher and SlimPool.ProtoActor's).
    /// </summary>
    public virtual bool Supports(IScenario scenario) => scenario is not (IDispatcherScenario or IProtoDispatcherScenario);

    /// <summary>The built-in pool at its best: the reference.</summary>
    public sealed class BuiltIn(string name, string description) : PoolDefinition(name, description, isDefault: true)
    {
        public override bool IsReference => true;

        public override bool Supports(IScenario scenario) => true;

        public override Measurement Measure(IScenario scenario, BenchCase benchCase, PoolSetup setup)
        {
            BuiltInPool.Apply(setup);
            return scenario switch
            {
                IDispatcherScenario akka => akka.MeasureOnDispatcher(benchCase, AkkaExecutors.BuiltIn),
                IProtoDispatcherScenario proto => proto.MeasureOnDispatcher(benchCase, ProtoDispatchers.Default),
                _ => scenario.Measure(benchCase, new BuiltInPool()),
            };
        }
    }

    /// <summary>A SlimThreadPool with the options <paramref name="options"/> makes for a setup.</summary>
    public sealed class Slim(string name, string description, Func<PoolSetup, SlimThreadPoolOptions> options, bool isDefault = false)
        : PoolDefinition(name, description, isDefault)
    {
        public override bool Supports(IScenario scenario) => true;

        public override Measurement Measure(IScenario scenario, BenchCase benchCase, PoolSetup setup)
        {
            if (scenario is IDispatcherScenario dispatcher)
            {
                return dispatcher.MeasureOnDispatcher(benchCase, AkkaExecutors.Slim(options(setup)));
            }

            using var pool = new SlimThreadPool(options(setup));
            return scenario is IProtoDispatcherScenario proto
                ? proto.MeasureOnDispatcher(benchCase, ProtoDispatchers.Slim(pool))
                : scenario.Measure(benchCase, new SlimPoolDriver(pool));
        }
    }

    /// <summary>
    /// Any <see cref="IThreadPool"/> through the interface (an extra row, never the reference). The case's caps are
    /// applied to the built-in pool too, for the rows that wrap it; the naive pool takes its thread count from the setup.
    /// </summary>
    public sealed class Adapter(string name, string description, Func<PoolSetup, IThreadPool> create)
        : PoolDefinition(name, description, isDefault: false)
    {
        public override Measurement Measure(IScenario scenario, BenchCase benchCase, PoolSetup setup)
        {
            BuiltInPool.Apply(setup);
            using IThreadPool pool = create(setup);
            return scenario.Measure(benchCase, new AdapterPool(pool));
        }
    }

    /// <summary>One of Akka.NET's own executors (HOCON for the default dispatcher): an extra row of the Akka scenarios only.</summary>
    public sealed class AkkaExecutor(string name, string description, Func<string> hocon)
        : PoolDefinition(name, description, isDefault: false)
    {
        public override bool Supports(IScenario scenario) => scenario is IDispatcherScenario;

        public override Measurement Measure(IScenario scenario, BenchCase benchCase, PoolSetup setup) =>
            scenario is IDispatcherScenario dispatcher
                ? dispatcher.MeasureOnDispatcher(benchCase, hocon())
                : throw new NotSupportedException($"{Name} is an Akka.NET executor: it runs only the Akka scenarios.");
    }

    /// <summary>One of Proto.Actor's own dispatchers: an extra row of the Proto scenarios only.</summary>
    public sealed class ProtoDispatcher(string name, string description, Func<Proto.Mailbox.IDispatcher> create)
        : PoolDefinition(name, description, isDefault: false)
    {
        public override bool Supports(IScenario scenario) => scenario is IProtoDispatcherScenario;

        public override Measurement Measure(IScenario scenario, BenchCase benchCase, PoolSetup setup)
        {
            BuiltInPool.Apply(setup); // the dispatcher runs on the built-in pool, sized as the reference is
            return scenario is IProtoDispatcherScenario proto
                ? proto.MeasureOnDispatcher(benchCase, create())
                : throw new NotSupportedException($"{Name} is a Proto.Actor dispatcher: it runs only the Proto scenarios.");
        }
    }
}
