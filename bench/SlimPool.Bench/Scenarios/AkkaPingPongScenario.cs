using System.Diagnostics;
using Akka.Actor;
using Akka.Configuration;
using SlimPool.Bench.Actors;
using SlimPool.Bench.Pools;
using SlimPool.Bench.Running;

namespace SlimPool.Bench.Scenarios;

/// <summary>
/// Akka.NET actor pairs bouncing messages, 50 in flight per pair, on the default dispatcher's executor: Akka's
/// default (the built-in pool), its ForkJoinDispatcher, its channel executor, and SlimPool.Akka. Every actor of the
/// system (its own included) runs on the executor under test, as when a user swaps the default dispatcher.
/// </summary>
internal sealed class AkkaPingPongScenario : IDispatcherScenario
{
    public string Name => "akka-pingpong";

    public string Description => "Akka.NET actor pairs, 50 messages in flight per pair, on each executor of the default dispatcher";

    public IReadOnlyList<BenchCase> Cases(CaseContext context) => PingPongCase.For(
        context,
        [PoolCatalog.AkkaForkJoinName, PoolCatalog.AkkaChannelName],
        $"every executor at throughput {AkkaExecutors.Throughput}; ThreadPool: Akka's default executor (the built-in pool, preferLocal); SlimPool: SlimPool.Akka's executor; ForkJoin: {Environment.ProcessorCount} dedicated threads");

    public Measurement Measure<TPool>(BenchCase benchCase, TPool pool)
        where TPool : struct, IBenchPool =>
        throw new NotSupportedException($"{Name} runs on Akka dispatchers, not on a pool driver (see {nameof(IDispatcherScenario)}).");

    public Measurement MeasureOnDispatcher(BenchCase benchCase, string dispatcherHocon)
    {
        var c = (PingPongCase)benchCase;
        Config config = ConfigurationFactory.ParseString($"""
            akka.loglevel = WARNING
            akka.stdout-loglevel = WARNING
            {dispatcherHocon}
            {AkkaExecutors.ThroughputHocon}
            """);
        using ActorSystem system = ActorSystem.Create("pingpong", config);
        using var done = new CountdownEvent(1);
        var pairs = new (IActorRef Ping, IActorRef Pong)[c.Pairs];
        for (int i = 0; i < c.Pairs; i++)
        {
            pairs[i] = (system.ActorOf(Props.Create(() => new PingPongActor(done)), $"ping{i}"), system.ActorOf(Props.Create(() => new PingPongActor(done)), $"pong{i}"));
        }

        int total = c.Pairs * PingPongCase.BallsPerPair * c.Bounces;
        try
        {
            return Measurement.WarmUpThenMeasure(() =>
            {
                done.Reset(c.Pairs * PingPongCase.BallsPerPair);
                long start = Stopwatch.GetTimestamp();
                foreach ((IActorRef ping, IActorRef pong) in pairs)
                {
                    for (int ball = 0; ball < PingPongCase.BallsPerPair; ball++)
                    {
                        ping.Tell(new PingPongActor.Ball { BouncesLeft = c.Bounces }, pong);
                    }
                }

                if (!done.Wait(TimeSpan.FromMinutes(2)))
                {
                    throw new TimeoutException($"akka-pingpong: {done.CurrentCount} of {done.InitialCount} balls still bouncing after 2 minutes");
                }

                double ms = Stopwatch.GetElapsedTime(start).TotalMilliseconds;
                return new Measurement(
                [
                    new("wall", "ms", ms),
                    new("per message", "ns", ms * 1e6 / total, "0.0"),
                    new("messages/s", "M/s", total / ms / 1e3, "0.00"),
                ]);
            });
        }
        finally
        {
            system.Terminate().Wait(TimeSpan.FromSeconds(30));
        }
    }
}
