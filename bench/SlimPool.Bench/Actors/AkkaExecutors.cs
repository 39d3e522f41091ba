namespace SlimPool.Bench.Actors;

/// <summary>The HOCON of <c>akka.actor.default-dispatcher</c> for each executor the Akka scenarios compare.</summary>
internal static class AkkaExecutors
{
    /// <summary>
    /// Messages a mailbox run processes before it gives its thread back (Akka's <c>throughput</c>, default 30), set
    /// to the same value for every executor so that the rows compare executors, not batch sizes.
    /// </summary>
    public const int Throughput = 30;

    /// <summary>The line that sets <see cref="Throughput"/> on the default dispatcher, whichever executor it uses.</summary>
    public static string ThroughputHocon => $"akka.actor.default-dispatcher.throughput = {Throughput}";

    /// <summary>Akka's default: the built-in pool, <c>UnsafeQueueUserWorkItem(runnable, preferLocal: true)</c>.</summary>
    public const string BuiltIn = "akka.actor.default-dispatcher.executor = default-executor";

    /// <summary>Akka's channel executor: a TaskScheduler over System.Threading.Channels on the built-in pool.</summary>
    public const string Channel = """
        akka.actor.default-dispatcher {
          executor = channel-executor
          channel-executor.priority = normal
        }
        """;

    /// <summary>Akka's ForkJoinDispatcher: its own dedicated thread pool (helios), one thread per core as SlimPool.</summary>
    public static string ForkJoin => $$"""
        akka.actor.default-dispatcher {
          executor = fork-join-executor
          fork-join-executor {
            parallelism-min = {{Environment.ProcessorCount}}
            parallelism-factor = 1.0
            parallelism-max = {{Environment.ProcessorCount}}
          }
        }
        """;

    /// <summary>SlimPool.Akka's executor with the settings of <paramref name="options"/> that HOCON can carry.</summary>
    public static string Slim(SlimThreadPoolOptions options) => $$"""
        akka.actor.default-dispatcher {
          executor = "SlimPool.Akka.SlimPoolExecutorServiceConfigurator, SlimPool.Akka"
          slim-pool {
            worker-count = {{options.WorkerCount}}
            queue = {{options.Queue switch { WorkQueueKind.Locked => "locked", WorkQueueKind.LockFree => "lock-free", _ => "work-stealing" }}}
            idle-wait = {{(options.IdleWait == IdleWaitKind.AutoResetEvent ? "auto-reset-event" : "spin-then-park")}}
            max-workers = {{options.MaxWorkers ?? 0}}
          }
        }
        """;
}
