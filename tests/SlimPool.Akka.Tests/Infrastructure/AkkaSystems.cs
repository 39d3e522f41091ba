using Akka.Actor;
using Akka.Configuration;

using SlimPool.Tests.Infrastructure;

namespace SlimPool.Akka.Tests.Infrastructure;

/// <summary>Actor systems for the tests: the default dispatcher on SlimPool (or, for differential tests, Akka's own).</summary>
internal static class AkkaSystems
{
    public const string Executor = "SlimPool.Akka.SlimPoolExecutorServiceConfigurator, SlimPool.Akka";

    /// <summary>A thread-name prefix no other test uses, short enough that the OS keeps all of it (see <see cref="OsThreads"/>).</summary>
    public static string UniquePrefix() => "spk" + Guid.NewGuid().ToString("N")[..6];

    /// <summary>The HOCON that puts the default dispatcher on SlimPool with <paramref name="workers"/> workers.</summary>
    public static string SlimDefaultDispatcher(string threadNamePrefix, int workers = 2) => $$"""
        akka.actor.default-dispatcher {
          executor = "{{Executor}}"
          slim-pool {
            worker-count = {{workers}}
            thread-name-prefix = "{{threadNamePrefix}}"
          }
        }
        """;

    public static ActorSystem Create(string name, string dispatcherHocon, string? extraHocon = null)
    {
        Config config = ConfigurationFactory.ParseString($"""
            akka.loglevel = WARNING
            akka.stdout-loglevel = WARNING
            akka.log-dead-letters = off
            {dispatcherHocon}
            {extraHocon}
            """);
        return ActorSystem.Create(name, config);
    }

    /// <summary>Terminates <paramref name="system"/>, bounded.</summary>
    public static void Terminate(ActorSystem system) => Bounded.Wait(system.Terminate(), $"actor system {system.Name} to terminate");
}
