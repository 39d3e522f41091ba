using Proto;
using SlimPool.ProtoActor.Tests.Infrastructure;
using SlimPool.Tests.Infrastructure;

namespace SlimPool.ProtoActor.Tests;

/// <summary>
/// <see cref="SlimPoolDispatcher.Throughput"/> is what Proto's mailbox reads: a run processes at most that many
/// messages, then queues the next run. Counted as the pool's completed items while the pool runs nothing else.
/// </summary>
public sealed class ThroughputTests
{
    [Theory]
    [InlineData(1)]
    [InlineData(7)]
    [InlineData(300)]
    public void Schedule_MessagesQueuedWhileThePoolIsHeld_OneRunPerThroughputMessages(int throughput)
    {
        const int Messages = 100;
        // No starvation guard: a spare worker could start the mailbox's run while the messages are still being sent.
        using var pool = new SlimThreadPool(new SlimThreadPoolOptions { Name = ProtoSystems.UniqueName(), WorkerCount = 1, StarvationTimeout = Timeout.InfiniteTimeSpan });
        var system = new ActorSystem();
        using var hold = new ManualResetEventSlim();
        using var allDone = new CountdownEvent(Messages);
        try
        {
            PID actor = system.Root.Spawn(Props.FromFunc(context =>
            {
                if (context.Message is int)
                {
                    allDone.Signal();
                }

                return Task.CompletedTask;
            }).WithDispatcher(new SlimPoolDispatcher(pool, throughput)));
            // The fresh pool's only item so far is the mailbox's run for the actor's Started message.
            Bounded.Until(() => pool.CompletedWorkItemCount == 1, "the actor's start to be processed");
            long before = pool.CompletedWorkItemCount;

            // The pool's only worker holds here, so every message is in the mailbox before its first run.
            pool.Queue(() => hold.Wait(Bounded.Timeout));
            for (int i = 0; i < Messages; i++)
            {
                system.Root.Send(actor, i);
            }

            hold.Set();
            Bounded.Wait(allDone, "every message to be processed");
            Bounded.Until(() => pool.PendingWorkItemCount == 0 && pool.BusyWorkerCount == 0, "the last run to return");
            Thread.Sleep(50); // a run queued by mistake after the last message would show in the count

            long runs = pool.CompletedWorkItemCount - before - 1; // less the holding item
            Assert.Equal((Messages + throughput - 1) / throughput, runs);
        }
        finally
        {
            hold.Set();
            ProtoSystems.Shutdown(system);
        }
    }
}
