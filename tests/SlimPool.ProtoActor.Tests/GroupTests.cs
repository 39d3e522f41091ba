using Proto;
using SlimPool.ProtoActor.Tests.Infrastructure;
using SlimPool.Tests.Infrastructure;

namespace SlimPool.ProtoActor.Tests;

/// <summary>The dispatcher over a <see cref="SlimThreadPoolGroup"/>: the group's limit caps how many mailboxes run at once.</summary>
public sealed class GroupTests
{
    [Theory]
    [InlineData(1, null)]
    [InlineData(2, null)]
    [InlineData(1, 2)] // a bound that is full most of the time: runs go past it, never around the group
    [InlineData(2, 2)]
    public void Schedule_OnAGroup_NoMoreMailboxesRunAtOnceThanTheGroupAllows(int maxConcurrency, int? boundedCapacity)
    {
        const int Actors = 6, Messages = 300;
        string name = ProtoSystems.UniqueName();
        using SlimThreadPool pool = ProtoSystems.Pool(name, workers: boundedCapacity is null ? 4 : 2, boundedCapacity);
        using SlimThreadPoolGroup group = pool.CreateGroup(new SlimGroupOptions { MaxConcurrency = maxConcurrency });
        var system = new ActorSystem();
        using var allDone = new CountdownEvent(Actors * Messages);
        int running = 0, mostAtOnce = 0;
        bool onPool = true;
        try
        {
            // Throughput 5: many short runs, so that runs of different actors get every chance to overlap.
            Props props = Props.FromFunc(context =>
            {
                if (context.Message is int)
                {
                    int now = Interlocked.Increment(ref running);
                    InterlockedMax(ref mostAtOnce, now);
                    onPool &= ProtoSystems.OnPool(name);
                    Thread.SpinWait(2_000);
                    Interlocked.Decrement(ref running);
                    allDone.Signal();
                }

                return Task.CompletedTask;
            }).WithDispatcher(new SlimPoolDispatcher(group, throughput: 5));
            PID[] actors = [.. Enumerable.Range(0, Actors).Select(_ => system.Root.Spawn(props))];
            for (int i = 0; i < Messages; i++)
            {
                Array.ForEach(actors, actor => system.Root.Send(actor, i));
            }

            Bounded.Wait(allDone, "every message to be processed");

            Assert.InRange(Volatile.Read(ref mostAtOnce), 1, maxConcurrency);
            Assert.True(Volatile.Read(ref onPool));
        }
        finally
        {
            ProtoSystems.Shutdown(system);
        }
    }

    private static void InterlockedMax(ref int target, int value)
    {
        int current = Volatile.Read(ref target);
        while (value > current && Interlocked.CompareExchange(ref target, value, current) is int seen && seen != current)
        {
            current = seen;
        }
    }
}
