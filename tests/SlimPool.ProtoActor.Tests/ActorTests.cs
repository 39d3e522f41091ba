using System.Runtime.CompilerServices;
using Proto;
using SlimPool.ProtoActor.Tests.Actors;
using SlimPool.ProtoActor.Tests.Infrastructure;
using SlimPool.Tests.Infrastructure;

namespace SlimPool.ProtoActor.Tests;

/// <summary>Real Proto.Actor systems whose actors run on <see cref="SlimPoolDispatcher"/>.</summary>
public sealed class ActorTests
{
    [Fact]
    public void Send_ManySendersToManyActors_EachActorSeesEachSendersMessagesInOrderOnThePool()
    {
        const int Actors = 8, Senders = 4, Messages = 5_000;
        string name = ProtoSystems.UniqueName();
        using SlimThreadPool pool = ProtoSystems.Pool(name);
        var system = new ActorSystem();
        try
        {
            // Throughput 7: many short runs, so a mailbox is rescheduled often while senders race to post.
            Props props = Props.FromProducer(() => new OrderCheckingActor(name, Senders)).WithDispatcher(new SlimPoolDispatcher(pool, throughput: 7));
            PID[] actors = [.. Enumerable.Range(0, Actors).Select(_ => system.Root.Spawn(props))];
            Thread[] senders = [.. Enumerable.Range(0, Senders).Select(sender => new Thread(() =>
            {
                for (int seq = 0; seq < Messages; seq++)
                {
                    foreach (PID actor in actors)
                    {
                        system.Root.Send(actor, new OrderCheckingActor.Numbered(sender, seq));
                    }
                }
            }) { IsBackground = true })];
            Array.ForEach(senders, t => t.Start());
            Assert.All(senders, t => Assert.True(t.Join(Bounded.Timeout), "a sender did not finish"));

            foreach (PID actor in actors)
            {
                var seen = ProtoSystems.Request<OrderCheckingActor.Seen>(system, actor, new OrderCheckingActor.Report());
                Assert.Equal(new OrderCheckingActor.Seen(Senders * Messages, InOrder: true, OnPool: true, Overlapped: false), seen);
            }
        }
        finally
        {
            ProtoSystems.Shutdown(system);
        }
    }

    [Fact]
    public void ReceiveAsync_AwaitsATimerTheBuiltInPoolAndARequest_OneMessageAtATimeResumingOnThePool()
    {
        const int Messages = 40;
        string name = ProtoSystems.UniqueName();
        using SlimThreadPool pool = ProtoSystems.Pool(name);
        var system = new ActorSystem();
        try
        {
            var dispatcher = new SlimPoolDispatcher(pool);
            PID echo = system.Root.Spawn(Props.FromProducer(() => new EchoActor()).WithDispatcher(dispatcher));
            PID actor = system.Root.Spawn(Props.FromProducer(() => new AsyncActor(name, echo)).WithDispatcher(dispatcher));

            // All asked at once: the mailbox must take them one at a time, each across its awaits.
            Task<AsyncActor.Outcome>[] requests = [.. Enumerable.Range(0, Messages).Select(i => system.Root.RequestAsync<AsyncActor.Outcome>(actor, $"m{i}", ProtoSystems.RequestTimeout))];
            AsyncActor.Outcome[] outcomes = Bounded.Result(Task.WhenAll(requests), "every async handler's answer");

            Assert.Equal(Enumerable.Range(0, Messages).Select(i => $"m{i}"), outcomes.Select(o => o.Echoed));
            Assert.All(outcomes, o => Assert.True(o.StayedOnPool, "resumed off the pool"));
            Assert.All(outcomes, o => Assert.Equal(0, o.Overlaps));
            Assert.Equal(Enumerable.Range(1, Messages), outcomes.Select(o => o.Handled));
            Assert.Equal(0, dispatcher.FallbackRunCount);
        }
        finally
        {
            ProtoSystems.Shutdown(system);
        }
    }

    [Fact]
    public void ReenterAfter_TaskNotDone_OtherMessagesRunMeanwhileAndTheContinuationAnswersOnThePool()
    {
        string name = ProtoSystems.UniqueName();
        using SlimThreadPool pool = ProtoSystems.Pool(name);
        var system = new ActorSystem();
        var gate = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        try
        {
            PID actor = system.Root.Spawn(Props.FromProducer(() => new ReenteringActor(name, gate.Task)).WithDispatcher(new SlimPoolDispatcher(pool)));
            Task<ReenteringActor.Reentered> slow = system.Root.RequestAsync<ReenteringActor.Reentered>(actor, "slow", ProtoSystems.RequestTimeout);

            for (int i = 0; i < 3; i++)
            {
                Assert.Equal("quick", ProtoSystems.Request<string>(system, actor, "quick"));
            }

            Assert.False(slow.IsCompleted);
            gate.SetResult();
            Assert.Equal(new ReenteringActor.Reentered(HandledMeanwhile: 3, OnPool: true), Bounded.Result(slow, "the reentered continuation's answer"));
        }
        finally
        {
            gate.TrySetResult();
            ProtoSystems.Shutdown(system);
        }
    }

    [Fact]
    public void StopAsync_ActorOnThePool_StopsAndLaterMessagesGoToDeadLetters()
    {
        using SlimThreadPool pool = ProtoSystems.Pool(ProtoSystems.UniqueName());
        var system = new ActorSystem();
        try
        {
            PID echo = system.Root.Spawn(Props.FromProducer(() => new EchoActor()).WithDispatcher(new SlimPoolDispatcher(pool)));
            Assert.Equal("hi", ProtoSystems.Request<string>(system, echo, "hi"));

            Bounded.Wait(system.Root.StopAsync(echo), "the actor to stop");

            // A request to a stopped actor is answered by dead letters, which Proto turns into a DeadLetterException.
            Task<string> after = system.Root.RequestAsync<string>(echo, "anyone?", ProtoSystems.RequestTimeout);
            Exception? failure = Bounded.Result(after.ContinueWith(t => t.Exception?.InnerException, TaskScheduler.Default), "the request to the stopped actor to end");
            Assert.IsType<DeadLetterException>(failure);
        }
        finally
        {
            ProtoSystems.Shutdown(system);
        }
    }

    [Fact]
    public void PoisonAsync_MessagesQueuedBeforeThePill_AllProcessedThenTheActorStops()
    {
        const int Messages = 2_000;
        string name = ProtoSystems.UniqueName();
        using SlimThreadPool pool = ProtoSystems.Pool(name);
        var system = new ActorSystem();
        try
        {
            var processed = new StrongBox<int>();
            Props props = Props.FromFunc(context =>
            {
                if (context.Message is int)
                {
                    processed.Value++; // one at a time: the mailbox never runs two of these at once
                }

                return Task.CompletedTask;
            }).WithDispatcher(new SlimPoolDispatcher(pool, throughput: 10));
            PID actor = system.Root.Spawn(props);
            for (int i = 0; i < Messages; i++)
            {
                system.Root.Send(actor, i);
            }

            // A poison pill is a user message: it comes after everything sent before it.
            Bounded.Wait(system.Root.PoisonAsync(actor), "the poisoned actor to stop");

            Assert.Equal(Messages, Volatile.Read(ref processed.Value));
        }
        finally
        {
            ProtoSystems.Shutdown(system);
        }
    }
}
