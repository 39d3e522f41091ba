using Akka.Actor;
using SlimPool.Akka.Tests.Actors;
using SlimPool.Akka.Tests.Infrastructure;
using SlimPool.Tests.Infrastructure;

namespace SlimPool.Akka.Tests;

/// <summary>A real <see cref="ActorSystem"/> whose default dispatcher runs on SlimPool.</summary>
public sealed class SlimPoolDispatcherTests
{
    private static readonly TimeSpan s_askTimeout = TimeSpan.FromSeconds(30);

    [Fact]
    public void Tell_ManyActorsManyMessages_EachActorSeesItsMessagesInOrderOnSlimPoolThreads()
    {
        const int Actors = 16, Messages = 5_000;
        string prefix = AkkaSystems.UniquePrefix();
        ActorSystem system = AkkaSystems.Create("order", AkkaSystems.SlimDefaultDispatcher(prefix));
        try
        {
            IActorRef[] actors = [.. Enumerable.Range(0, Actors).Select(i => system.ActorOf(Props.Create(() => new OrderCheckingActor(prefix)), $"a{i}"))];
            for (int message = 0; message < Messages; message++)
            {
                foreach (IActorRef actor in actors)
                {
                    actor.Tell(message);
                }
            }

            foreach (IActorRef actor in actors)
            {
                var seen = Bounded.Result(actor.Ask<OrderCheckingActor.Seen>(new OrderCheckingActor.Report(), s_askTimeout), "an actor's report");
                Assert.Equal(new OrderCheckingActor.Seen(Messages, InOrder: true, OnSlimPool: true), seen);
            }
        }
        finally
        {
            AkkaSystems.Terminate(system);
        }
    }

    [Fact]
    public void ReceiveAsync_AwaitsATimerTheBuiltInPoolAndAnAsk_ResumesInsideTheActorEveryTime()
    {
        const int Messages = 40;
        ActorSystem system = AkkaSystems.Create("async", AkkaSystems.SlimDefaultDispatcher(AkkaSystems.UniquePrefix()));
        try
        {
            IActorRef echo = system.ActorOf(Props.Create(() => new EchoActor()), "echo");
            IActorRef actor = system.ActorOf(Props.Create(() => new AsyncActor(echo)), "async");

            // All asked at once: the actor must take them one at a time, each across its awaits.
            Task<AsyncActor.Outcome>[] asks = [.. Enumerable.Range(0, Messages).Select(i => actor.Ask<AsyncActor.Outcome>($"m{i}", s_askTimeout))];
            AsyncActor.Outcome[] outcomes = Bounded.Result(Task.WhenAll(asks), "every async handler's answer");

            Assert.Equal(Enumerable.Range(0, Messages).Select(i => $"m{i}"), outcomes.Select(outcome => outcome.Echoed));
            Assert.All(outcomes, outcome => Assert.True(outcome.StayedInsideTheActor));
            Assert.All(outcomes, outcome => Assert.Equal(0, outcome.Overlaps));
            Assert.Equal(Enumerable.Range(1, Messages), outcomes.Select(outcome => outcome.Handled));
        }
        finally
        {
            AkkaSystems.Terminate(system);
        }
    }

    [Fact]
    public void PipeTo_TaskFromTheBuiltInPool_ArrivesAsAMessage()
    {
        ActorSystem system = AkkaSystems.Create("pipe", AkkaSystems.SlimDefaultDispatcher(AkkaSystems.UniquePrefix()));
        try
        {
            IActorRef echo = system.ActorOf(Props.Create(() => new EchoActor()), "echo");
            IActorRef actor = system.ActorOf(Props.Create(() => new AsyncActor(echo)), "async");

            Assert.Equal(42, Bounded.Result(actor.Ask<int>(new AsyncActor.PipeRequest(41), s_askTimeout), "the piped answer"));
        }
        finally
        {
            AkkaSystems.Terminate(system);
        }
    }

    [Theory]
    [InlineData("slim-pool")]
    [InlineData("akka-default")]
    public void BlockingActors_TwiceAsManyAsWorkers_AnotherActorStillAnswers(string dispatcher)
    {
        const int Workers = 2, Blockers = 2 * Workers;
        string hocon = dispatcher == "slim-pool" ? AkkaSystems.SlimDefaultDispatcher(AkkaSystems.UniquePrefix(), Workers) : string.Empty;
        ActorSystem system = AkkaSystems.Create("blocking", hocon);
        using var release = new ManualResetEventSlim();
        using var started = new CountdownEvent(Blockers);
        try
        {
            IActorRef echo = system.ActorOf(Props.Create(() => new EchoActor()), "echo");
            for (int i = 0; i < Blockers; i++)
            {
                system.ActorOf(Props.Create(() => new BlockingActor(release, started)), $"blocker{i}").Tell("block");
            }

            Bounded.Wait(started, "every blocking actor to start blocking");
            string answer = Bounded.Result(echo.Ask<string>("still there?", s_askTimeout), "an answer while the blockers block");

            Assert.Equal("still there?", answer);
            Assert.False(release.IsSet); // answered while every blocker still held its thread
        }
        finally
        {
            release.Set();
            AkkaSystems.Terminate(system);
        }
    }

    [Fact]
    public void Terminate_SystemOnSlimPool_EndsEveryPoolThread()
    {
        Assert.True(OsThreads.CanList, "This test reads /proc/self/task (Linux).");
        string prefix = AkkaSystems.UniquePrefix();
        ActorSystem system = AkkaSystems.Create("terminate", AkkaSystems.SlimDefaultDispatcher(prefix));
        IActorRef echo = system.ActorOf(Props.Create(() => new EchoActor()), "echo");
        Assert.Equal("hi", Bounded.Result(echo.Ask<string>("hi", s_askTimeout), "the echo"));
        Assert.InRange(OsThreads.CountNamed(prefix), 2, int.MaxValue); // two workers at least, and the guard

        AkkaSystems.Terminate(system);

        Bounded.Until(() => OsThreads.CountNamed(prefix) == 0, $"every thread named {prefix}... has exited");
    }
}
