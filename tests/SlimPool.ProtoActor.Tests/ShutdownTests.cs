using Proto;
using SlimPool.ProtoActor.Tests.Actors;
using SlimPool.ProtoActor.Tests.Infrastructure;
using SlimPool.Tests.Infrastructure;

namespace SlimPool.ProtoActor.Tests;

/// <summary>
/// The pool shut down while actors still have messages. Drain (what Dispose does) runs the runs already queued; a run
/// the pool then refuses goes to the built-in pool, so no message is lost and stops still complete. Abandon hands the
/// queued runs back: a mailbox whose run is abandoned waits until the caller runs it.
/// </summary>
public sealed class ShutdownTests
{
    [Fact]
    public void ShutdownAsyncDrain_ActorsStillHaveMessages_EveryMessageProcessedInOrderAndTheRestOffThePool()
    {
        const int Actors = 4, Messages = 1_000;
        string name = ProtoSystems.UniqueName();
        SlimThreadPool pool = ProtoSystems.Pool(name, workers: 1);
        var dispatcher = new SlimPoolDispatcher(pool, throughput: 10);
        var system = new ActorSystem();
        using var hold = new ManualResetEventSlim();
        try
        {
            PID[] actors = [.. Enumerable.Range(0, Actors).Select(_ => system.Root.Spawn(Props.FromProducer(() => new SequenceActor(name)).WithDispatcher(dispatcher)))];
            pool.Queue(() => hold.Wait(Bounded.Timeout)); // every mailbox's first run waits behind this
            for (int i = 0; i < Messages; i++)
            {
                Array.ForEach(actors, actor => system.Root.Send(actor, i));
            }

            Task<ShutdownResult> shutdown = pool.ShutdownAsync(ShutdownMode.Drain);
            hold.Set();
            Assert.Equal(0, Bounded.Result(shutdown, "the pool to drain").AbandonedCount);
            for (int i = Messages; i < 2 * Messages; i++)
            {
                Array.ForEach(actors, actor => system.Root.Send(actor, i)); // after the pool is gone
            }

            foreach (PID actor in actors)
            {
                var seen = ProtoSystems.Request<SequenceActor.Seen>(system, actor, new SequenceActor.Report());
                Assert.Equal(2 * Messages, seen.Received);
                Assert.True(seen.InOrder);
                Assert.InRange(seen.OnPool, 1, Messages); // the drained runs on the pool, nothing after it was gone
            }

            Assert.InRange(dispatcher.FallbackRunCount, Actors, long.MaxValue);
            Bounded.Wait(system.Root.StopAsync(actors[0]), "an actor to stop after its pool is gone");
        }
        finally
        {
            hold.Set();
            ProtoSystems.Shutdown(system);
            pool.Dispose();
        }
    }

    [Fact]
    public void ShutdownAsyncAbandon_QueuedMailboxRun_ActorWaitsUntilTheCallerRunsTheAbandonedItem()
    {
        const int Messages = 50;
        string name = ProtoSystems.UniqueName();
        SlimThreadPool pool = ProtoSystems.Pool(name, workers: 1);
        var dispatcher = new SlimPoolDispatcher(pool, throughput: 10);
        var system = new ActorSystem();
        using var hold = new ManualResetEventSlim();
        try
        {
            PID actor = system.Root.Spawn(Props.FromProducer(() => new SequenceActor(name)).WithDispatcher(dispatcher));
            Bounded.Until(() => pool.PendingWorkItemCount == 0 && pool.BusyWorkerCount == 0, "the actor's start to be processed");
            using var holding = new ManualResetEventSlim();
            pool.Queue(() =>
            {
                holding.Set();
                hold.Wait(Bounded.Timeout);
            });
            Bounded.Wait(holding, "the worker to hold"); // started, so Abandon lets it finish and hands back only the run
            for (int i = 0; i < Messages; i++)
            {
                system.Root.Send(actor, i);
            }

            Task<ShutdownResult> shutdown = pool.ShutdownAsync(ShutdownMode.Abandon);
            hold.Set();
            ShutdownResult result = Bounded.Result(shutdown, "the pool to stop");
            Assert.Equal(1, result.AbandonedCount); // the mailbox's run: the mailbox counts as busy until it runs
            Task<SequenceActor.Seen> report = system.Root.RequestAsync<SequenceActor.Seen>(actor, new SequenceActor.Report(), ProtoSystems.RequestTimeout);
            Thread.Sleep(100);
            Assert.False(report.IsCompleted);

            result.AbandonedItems[0].Run(); // the caller's choice: run it here; its later runs go to the built-in pool

            Assert.Equal(new SequenceActor.Seen(Messages, InOrder: true, OnPool: 0), Bounded.Result(report, "the report once the abandoned run ran"));
            Assert.InRange(dispatcher.FallbackRunCount, 1, long.MaxValue);
        }
        finally
        {
            hold.Set();
            ProtoSystems.Shutdown(system);
            pool.Dispose();
        }
    }
}
