using System.Diagnostics;
using Proto;
using Proto.Mailbox;
using SlimPool.ProtoActor.Tests.Actors;
using SlimPool.ProtoActor.Tests.Infrastructure;
using SlimPool.Tests.Infrastructure;
using Xunit.Abstractions;

namespace SlimPool.ProtoActor.Tests;

/// <summary>
/// Differential: the same blocking scenario on SlimPool's dispatcher and on Proto's own (the built-in pool). Whatever
/// Proto's dispatchers survive, SlimPool's must survive too; the times are written to the test output for comparison.
/// </summary>
public sealed class BlockingTests(ITestOutputHelper output)
{
    private const int Workers = 2;

    [Theory]
    [InlineData("slim-pool")]
    [InlineData("proto-threadpool")]
    [InlineData("proto-default")]
    public void Receive_BlockersFourTimesTheWorkers_AllBlockAtOnceAndAnotherActorStillAnswers(string kind)
    {
        const int Blockers = 4 * Workers;
        using SlimThreadPool pool = ProtoSystems.Pool(ProtoSystems.UniqueName(), Workers);
        IDispatcher dispatcher = ProtoSystems.Dispatcher(kind, pool);
        var system = new ActorSystem();
        using var release = new ManualResetEventSlim();
        using var started = new CountdownEvent(Blockers);
        try
        {
            PID echo = system.Root.Spawn(Props.FromProducer(() => new EchoActor()).WithDispatcher(dispatcher));
            var stopwatch = Stopwatch.StartNew();
            for (int i = 0; i < Blockers; i++)
            {
                PID blocker = system.Root.Spawn(Props.FromProducer(() => new BlockingActor(release, started)).WithDispatcher(dispatcher));
                system.Root.Send(blocker, "block");
            }

            // Every blocker holds a thread at once: the pool must have grown to Blockers threads beyond its workers' count.
            Bounded.Wait(started, "every blocking actor to start blocking");
            TimeSpan allBlocked = stopwatch.Elapsed;
            string answer = ProtoSystems.Request<string>(system, echo, "still there?");
            output.WriteLine($"{kind}: {Blockers} blockers all blocked after {allBlocked.TotalMilliseconds:F0} ms; echo answered after {stopwatch.Elapsed.TotalMilliseconds:F0} ms");

            Assert.Equal("still there?", answer);
            Assert.False(release.IsSet); // answered while every blocker still held its thread
        }
        finally
        {
            release.Set();
            ProtoSystems.Shutdown(system);
        }
    }

    [Theory]
    [InlineData("slim-pool")]
    [InlineData("proto-threadpool")]
    public void Receive_OneActorBlocksForAWhile_ActorsOnTheSameDispatcherKeepAnswering(string kind)
    {
        const int Echoes = 4, Rounds = 20;
        using SlimThreadPool pool = ProtoSystems.Pool(ProtoSystems.UniqueName(), Workers);
        IDispatcher dispatcher = ProtoSystems.Dispatcher(kind, pool);
        var system = new ActorSystem();
        using var release = new ManualResetEventSlim();
        using var started = new CountdownEvent(Workers);
        try
        {
            // One blocker per worker: without spare threads, nothing else on the dispatcher would run.
            for (int i = 0; i < Workers; i++)
            {
                system.Root.Send(system.Root.Spawn(Props.FromProducer(() => new BlockingActor(release, started)).WithDispatcher(dispatcher)), "block");
            }

            Bounded.Wait(started, "the blockers to start blocking");
            PID[] echoes = [.. Enumerable.Range(0, Echoes).Select(_ => system.Root.Spawn(Props.FromProducer(() => new EchoActor()).WithDispatcher(dispatcher)))];
            var stopwatch = Stopwatch.StartNew();
            for (int round = 0; round < Rounds; round++)
            {
                Assert.All(echoes, echo => Assert.Equal($"r{round}", ProtoSystems.Request<string>(system, echo, $"r{round}")));
            }

            output.WriteLine($"{kind}: {Rounds} rounds of {Echoes} requests with every worker blocked took {stopwatch.Elapsed.TotalMilliseconds:F0} ms");
            Assert.False(release.IsSet);
        }
        finally
        {
            release.Set();
            ProtoSystems.Shutdown(system);
        }
    }
}
