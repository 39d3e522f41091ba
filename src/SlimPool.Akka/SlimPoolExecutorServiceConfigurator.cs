using Akka.Configuration;
using Akka.Dispatch;
using Akka.Event;

namespace SlimPool.Akka;

/// <summary>
/// Runs an Akka.NET dispatcher on a <see cref="SlimThreadPool"/>. Name it as the dispatcher's executor in HOCON:
/// <code>
/// akka.actor.default-dispatcher {
///   executor = "SlimPool.Akka.SlimPoolExecutorServiceConfigurator, SlimPool.Akka"
///   slim-pool {
///     worker-count = 0              # threads; 0 (the default): one per core
///     queue = work-stealing         # work-stealing (default) | lock-free | locked
///     idle-wait = spin-then-park    # spin-then-park (default) | auto-reset-event
///     starvation-timeout = 50ms     # default 50ms; off turns the starvation guard off
///     max-workers = 0               # ceiling with spare workers; 0 (the default): SlimPool's own
///     thread-name-prefix = ""       # "" (the default): the dispatcher's id
///     slow-item-threshold = off     # off (the default) | a duration: report a mailbox run that holds a worker this long
///   }
/// }
/// </code>
/// </summary>
/// <remarks>
/// <para>Each dispatcher gets its own pool, created when its first actor attaches. When the dispatcher shuts its
/// executor down (no actors left for its <c>shutdown-timeout</c>, or the actor system terminating), the pool drains
/// and its threads exit; a dispatcher that gets actors again later gets a new pool.</para>
/// <para>The workers run without a <see cref="SynchronizationContext"/>, as the built-in pool's threads do, so an
/// <c>await</c> inside an actor resumes on the actor's own task scheduler. A blocking actor is covered by the pool's
/// starvation guard: it starts a spare worker when queued mailboxes make no progress for <c>starvation-timeout</c>.
/// An exception that escapes a mailbox run is published to the event stream as an <see cref="Error"/>.</para>
/// </remarks>
public sealed class SlimPoolExecutorServiceConfigurator : ExecutorServiceConfigurator
{
    private readonly SlimThreadPoolOptions _options;

    /// <summary>Reads and checks the dispatcher's <c>slim-pool</c> block. Akka calls this when it creates the dispatcher.</summary>
    /// <param name="config">The dispatcher's configuration.</param>
    /// <param name="prerequisites">What the actor system provides to dispatchers (its event stream, among others).</param>
    /// <exception cref="ConfigurationException">A <c>slim-pool</c> setting is not valid; the message names its full path.</exception>
    public SlimPoolExecutorServiceConfigurator(Config config, IDispatcherPrerequisites prerequisites) : base(config, prerequisites)
    {
        string id = config?.GetString("id", null) is { Length: > 0 } configured ? configured : "slim-pool-dispatcher";
        _options = SlimPoolDispatcherSettings.ToOptions(config, id);
        EventStream? events = prerequisites?.EventStream;
        if (events is not null)
        {
            _options.UnhandledException = exception => events.Publish(new Error(exception, id, typeof(SlimPoolExecutorService), "A mailbox run on SlimPool threw."));
        }
    }

    /// <summary>The options each pool of this dispatcher is created with (each pool copies them when created).</summary>
    internal SlimThreadPoolOptions Options => _options;

    /// <summary>Creates the dispatcher's executor: a new <see cref="SlimThreadPool"/> with this dispatcher's settings.</summary>
    /// <param name="id">The dispatcher's id.</param>
    /// <returns>An executor that runs the dispatcher's mailboxes on the new pool.</returns>
    public override ExecutorService Produce(string id) => new SlimPoolExecutorService(id, _options);
}
