using System.Diagnostics;
using Proto;
using Proto.Mailbox;
using SlimPool.Bench.Actors;
using SlimPool.Bench.Pools;
using SlimPool.Bench.Running;

namespace SlimPool.Bench.Scenarios;

/// <summary>
/// Proto.Actor pairs bouncing messages, 50 in flight per pair, as akka-pingpong: on Proto's default dispatcher (the
/// built-in pool), its ThreadPoolDispatcher, and SlimPool.ProtoActor's dispatcher, all at Proto's throughput of 300.
/// The pairs' actors run on the dispatcher under test (set with <c>Props.WithDispatcher</c>); the system's own do not.
/// </summary>
internal sealed class ProtoPingPongScenario : IProtoDispatcherScenario
{
    public string Name => "proto-pingpong";

    public string Description => "Proto.Actor actor pairs, 50 messages in flight per pair, on each dispatcher";

    public IReadOnlyList<BenchCase> Cases(CaseContext context) => PingPongCase.For(
        context,
        [PoolCatalog.ProtoThreadPoolName],
        $"every dispatcher at throughput {ProtoDispatchers.Throughput}; ThreadPool: Proto's default dispatcher (the mailbox queued on the built-in pool as an IThreadPoolWorkItem); SlimPool: SlimPool.ProtoActor's dispatcher; {PoolCatalog.ProtoThreadPoolName}: Task.Factory.StartNew per mailbox run");

    public Measurement Measure<TPool>(BenchCase benchCase, TPool pool)
        where TPool : struct, IBenchPool =>
        throw new NotSupportedException($"{Name} runs on Proto.Actor dispatchers, not on a pool driver (see {nameof(IProtoDispatcherScenario)}).");

    public Measurement MeasureOnDispatcher(BenchCase benchCase, IDispatcher dispatcher)
    {
        var c = (PingPongCase)benchCase;
        var system = new ActorSystem();
        using var done = new CountdownEvent(1);
        Props props = Props.FromProducer(() => new ProtoPingPongActor(done)).WithDispatcher(dispatcher);
        var pairs = new (PID Ping, PID Pong)[c.Pairs];
        for (int i = 0; i < c.Pairs; i++)
        {
            pairs[i] = (system.Root.Spawn(props), system.Root.Spawn(props));
            system.Root.Send(pairs[i].Ping, pairs[i].Pong); // each learns its partner before any ball arrives
            system.Root.Send(pairs[i].Pong, pairs[i].Ping);
        }

        int total = c.Pairs * PingPongCase.BallsPerPair * c.Bounces;
        try
        {
            return Measurement.WarmUpThenMeasure(() =>
            {
                done.Reset(c.Pairs * PingPongCase.BallsPerPair);
                long start = Stopwatch.GetTimestamp();
                foreach ((PID ping, _) in pairs)
                {
                    for (int ball = 0; ball < PingPongCase.BallsPerPair; ball++)
                    {
                        system.Root.Send(ping, new PingPongActor.Ball { BouncesLeft = c.Bounces });
                    }
                }

                if (!done.Wait(TimeSpan.FromMinutes(2)))
                {
                    throw new TimeoutException($"proto-pingpong: {done.CurrentCount} of {done.InitialCount} balls still bouncing after 2 minutes");
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
            system.ShutdownAsync("measured").Wait(TimeSpan.FromSeconds(30));
        }
    }
}
