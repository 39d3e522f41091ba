using System.Collections.Concurrent;
using System.Diagnostics;
using SlimPool.Tests.Infrastructure;

namespace SlimPool.Tests.Groups;

/// <summary>What a group promises beyond the contract: order, its limit, fairness, no worker held waiting for it.</summary>
public sealed class GroupBehaviourTests
{
    [Theory]
    [InlineData(WorkItemPriority.Low)]
    [InlineData(WorkItemPriority.Normal)]
    [InlineData(WorkItemPriority.High)]
    public void CreateGroup_EachPriority_GroupKeepsIt(WorkItemPriority priority)
    {
        using SlimThreadPool pool = TestPools.Create(workers: 1);
        using SlimThreadPoolGroup group = pool.CreateGroup(new SlimGroupOptions { Priority = priority });

        Assert.Equal(priority, group.Priority);
    }

    [Fact]
    public void SerialGroup_ManyItemsOnAWidePool_RunOneAtATimeInOrderSeeingEachOthersWrites()
    {
        const int Items = 20_000;
        using SlimThreadPool pool = TestPools.Create(workers: 4);
        using SlimThreadPoolGroup serial = pool.CreateGroup(new SlimGroupOptions { MaxItemsPerTurn = 7 });
        var order = new int[Items];
        int next = 0;     // plain field: each item must see the previous item's write (happens-before)
        int running = 0;
        int overlaps = 0;
        using var done = new CountdownEvent(Items);

        for (int i = 0; i < Items; i++)
        {
            int id = i;
            serial.Queue(() =>
            {
                if (Interlocked.Increment(ref running) != 1)
                {
                    Interlocked.Increment(ref overlaps);
                }

                order[next] = id;
                next++;
                Interlocked.Decrement(ref running);
                done.Signal();
            });

            // Plain items beside the group, so the group's turns share the workers with other work.
            pool.Queue(static () => Thread.SpinWait(20));
        }

        Bounded.Wait(done, "the serial group's items");
        Assert.Equal(0, overlaps);
        Assert.Equal(Items, next);
        Assert.Equal(Enumerable.Range(0, Items), order);
    }

    [Fact]
    public void SerialGroups_OneMessageRelayedBackAndForth_EachHopRunsOnceInItsGroupAndBothDropTheirQueues()
    {
        // Two actors answering each other: every message finds its group idle, so it is a turn of one item, its queue
        // made on arrival and kept or dropped after, and its clock never read (TurnQuantum starts it at a second item).
        const int Hops = 20_000;
        using SlimThreadPool pool = TestPools.Create(workers: 2);
        using SlimThreadPoolGroup a = pool.CreateGroup();
        using SlimThreadPoolGroup b = pool.CreateGroup();
        var inGroup = new int[2];
        int hops = 0; // plain field: each hop must see the previous hop's write, across the two groups
        int wrongGroup = 0;
        using var done = new ManualResetEventSlim();

        void Hop(int side)
        {
            if (Interlocked.Increment(ref inGroup[side]) != 1 || SynchronizationContext.Current != (side == 0 ? a : b).SynchronizationContext)
            {
                Interlocked.Increment(ref wrongGroup);
            }

            int hop = ++hops;
            Interlocked.Decrement(ref inGroup[side]);
            if (hop == Hops)
            {
                done.Set();
                return;
            }

            (side == 0 ? b : a).Queue(() => Hop(1 - side));
        }

        a.Queue(() => Hop(0));
        Bounded.Wait(done, "the relayed message's last hop");

        Assert.Equal(0, wrongGroup);
        Assert.Equal(Hops, hops);
        Bounded.Until(() => a.CompletedWorkItemCount == Hops / 2 && b.CompletedWorkItemCount == Hops / 2, "each group's count of its hops");
        Bounded.Until(() => !a.HasQueue && !b.HasQueue, "both groups dropped their queues once the pool went idle");
    }

    [Fact]
    public void Group_ConcurrencyFour_NeverRunsMoreThanFourAndReachesFour()
    {
        const int Items = 400;
        using SlimThreadPool pool = TestPools.Create(workers: 8);
        using SlimThreadPoolGroup group = pool.CreateGroup(new SlimGroupOptions { MaxConcurrency = 4, MaxItemsPerTurn = 2 });
        int running = 0;
        int maxRunning = 0;
        using var done = new CountdownEvent(Items);

        for (int i = 0; i < Items; i++)
        {
            group.Queue(() =>
            {
                int now = Interlocked.Increment(ref running);
                Atomic.Max(ref maxRunning, now);
                var stopwatch = Stopwatch.StartNew();
                while (Volatile.Read(ref running) < 4 && stopwatch.ElapsedMilliseconds < 20)
                {
                    Thread.SpinWait(50); // give the others a moment to join, so reaching the limit is likely
                }

                Interlocked.Decrement(ref running);
                done.Signal();
            });
        }

        Bounded.Wait(done, "the group's items");
        Assert.True(maxRunning <= 4, $"{maxRunning} of the group's items ran at once; the limit is 4.");
        Assert.Equal(4, maxRunning);
    }

    [Fact]
    public void SerialGroup_ItemBlocks_PoolsOtherWorkerKeepsRunningPlainItems()
    {
        using SlimThreadPool pool = TestPools.Create(workers: 2);
        using SlimThreadPoolGroup serial = pool.CreateGroup();
        using var release = new ManualResetEventSlim(false);
        using var plainDone = new CountdownEvent(100);
        int groupRan = 0;

        serial.Queue(() => release.Wait(Bounded.Timeout));
        for (int i = 0; i < 50; i++)
        {
            serial.Queue(() => Interlocked.Increment(ref groupRan));
        }

        // The group's other items wait inside the group: no second worker is taken by them.
        for (int i = 0; i < 100; i++)
        {
            pool.Queue(() => plainDone.Signal());
        }

        Bounded.Wait(plainDone, "plain items while the serial group's first item blocks");
        Assert.Equal(0, Volatile.Read(ref groupRan));
        release.Set();
        Bounded.Until(() => Volatile.Read(ref groupRan) == 50, "the group's remaining items");
    }

    [Theory]
    [InlineData(32, -1)]   // the count quantum (1 ms default time quantum is longer than 32 tiny items)
    [InlineData(100_000, 2)] // the time quantum alone: 2 ms
    public void Groups_BusyAndLightOnOneWorker_LightGroupRunsWithinAFewQuanta(int maxItemsPerTurn, int maxTurnMs)
    {
        const int BusyItems = 5_000;
        using SlimThreadPool pool = TestPools.Create(workers: 1);
        var options = new SlimGroupOptions
        {
            MaxItemsPerTurn = maxItemsPerTurn,
            MaxTurnDuration = maxTurnMs < 0 ? Timeout.InfiniteTimeSpan : TimeSpan.FromMilliseconds(maxTurnMs),
        };
        using SlimThreadPoolGroup busy = pool.CreateGroup(options);
        using SlimThreadPoolGroup light = pool.CreateGroup(options);
        using var busyStarted = new ManualResetEventSlim(false);
        var lightDone = new TaskCompletionSource<long>(TaskCreationOptions.RunContinuationsAsynchronously);

        // The busy group's turn is running on the only worker before the light group queues anything.
        busy.Queue(() => busyStarted.Set());
        for (int i = 0; i < BusyItems; i++)
        {
            busy.Queue(static () => Thread.SpinWait(400)); // about 10-20 µs
        }

        Bounded.Wait(busyStarted, "the busy group's first item");
        long busyRunBeforeLightQueued = busy.CompletedWorkItemCount; // the worker ran on while this thread queued the busy items
        int lightLeft = 5;
        for (int i = 0; i < 5; i++)
        {
            light.Queue(() =>
            {
                if (--lightLeft == 0)
                {
                    lightDone.SetResult(busy.CompletedWorkItemCount);
                }
            });
        }

        long busyRunWhileLightWaited = Bounded.Result(lightDone.Task, "the light group") - busyRunBeforeLightQueued;
        Assert.True(
            busyRunWhileLightWaited < BusyItems / 4,
            $"the light group finished only after {busyRunWhileLightWaited} more of the busy group's {BusyItems} items.");
        Bounded.Until(() => busy.CompletedWorkItemCount == BusyItems + 1, "the busy group");
    }

    [Fact]
    public void SerialGroup_AsyncFlowsOnItsScheduler_ResumeInTheGroupOneAtATime()
    {
        const int Flows = 20;
        using SlimThreadPool pool = TestPools.Create(workers: 4);
        using SlimThreadPoolGroup serial = pool.CreateGroup();
        int running = 0;
        int overlaps = 0;
        int outsideTheGroup = 0;

        async Task Flow()
        {
            for (int step = 0; step < 10; step++)
            {
                if (Interlocked.Increment(ref running) != 1)
                {
                    Interlocked.Increment(ref overlaps);
                }

                if (SynchronizationContext.Current != serial.SynchronizationContext)
                {
                    Interlocked.Increment(ref outsideTheGroup);
                }

                Thread.SpinWait(100);
                Interlocked.Decrement(ref running);
                await Task.Yield();
            }
        }

        Task[] flows = [.. Enumerable.Range(0, Flows).Select(_ => Task.Factory.StartNew(Flow, CancellationToken.None, TaskCreationOptions.None, serial.TaskScheduler).Unwrap())];
        Bounded.Wait(Task.WhenAll(flows), "the async flows");
        Assert.Equal(0, overlaps);
        Assert.Equal(0, outsideTheGroup);
        Assert.Equal(1, serial.TaskScheduler.MaximumConcurrencyLevel);
    }

    [Fact]
    public void SynchronizationContextSend_InsideAGroupItem_RunsInline()
    {
        using SlimThreadPool pool = TestPools.Create(workers: 2);
        using SlimThreadPoolGroup serial = pool.CreateGroup();
        var result = new TaskCompletionSource<(int Outer, int Inner)>(TaskCreationOptions.RunContinuationsAsynchronously);

        serial.Queue(() =>
        {
            int inner = -1;
            serial.SynchronizationContext.Send(_ => inner = Environment.CurrentManagedThreadId, null); // would deadlock if posted
            result.SetResult((Environment.CurrentManagedThreadId, inner));
        });

        (int outer, int innerThread) = Bounded.Result(result.Task, "Send inside the group");
        Assert.Equal(outer, innerThread);
    }
}
