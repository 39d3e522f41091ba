using System.Diagnostics.Metrics;
using SlimPool.Tests.Infrastructure;

namespace SlimPool.Tests.Groups;

/// <summary>A group's shutdown alone, the pool's shutdown with groups in it, metrics and options.</summary>
public sealed class GroupLifecycleTests
{
    [Fact]
    public void GroupAbandon_WithQueuedItems_HandsThemBackAndThePoolAndOtherGroupsGoOn()
    {
        using SlimThreadPool pool = TestPools.Create(workers: 2);
        SlimThreadPoolGroup doomed = pool.CreateGroup();
        using SlimThreadPoolGroup other = pool.CreateGroup();
        using var started = new ManualResetEventSlim(false);
        using var release = new ManualResetEventSlim(false);
        var ledger = new Ledger(101);

        doomed.Queue(() =>
        {
            started.Set();
            release.Wait(Bounded.Timeout);
            ledger.Mark(0);
        });
        for (int i = 1; i <= 100; i++)
        {
            int id = i;
            doomed.Queue(() => ledger.Mark(id));
        }

        Bounded.Wait(started, "the group's first item");
        Task<ShutdownResult> shutdown = doomed.ShutdownAsync(ShutdownMode.Abandon);
        Assert.False(doomed.TryQueue(() => { }));
        Assert.Throws<ObjectDisposedException>(() => doomed.Queue(() => { }));
        release.Set();
        ShutdownResult result = Bounded.Result(shutdown, "the group's abandon");

        Assert.Equal(ShutdownMode.Abandon, result.Mode);
        Assert.Equal(100, result.AbandonedCount);
        Assert.Equal(1, ledger.Total);
        foreach (AbandonedWorkItem item in result.AbandonedItems)
        {
            item.Run();
        }

        ledger.AssertEachExactlyOnce();
        using var otherDone = new CountdownEvent(2);
        other.Queue(() => otherDone.Signal());
        pool.Queue(() => otherDone.Signal());
        Bounded.Wait(otherDone, "the pool and another group after one group's abandon");
    }

    [Fact]
    public void GroupDispose_WithQueuedItems_RunsThemAllAndThePoolStillAccepts()
    {
        using SlimThreadPool pool = TestPools.Create(workers: 2);
        SlimThreadPoolGroup group = pool.CreateGroup(new SlimGroupOptions { MaxConcurrency = 2 });
        var ledger = new Ledger(2_000);
        ledger.QueueEach(group);

        Bounded.Run(group.Dispose, "the group's Dispose");
        ledger.AssertEachExactlyOnce();
        Assert.Equal(2_000, group.CompletedWorkItemCount);
        Assert.True(pool.TryQueue(() => { }));
        Assert.Throws<ObjectDisposedException>(() => group.Queue(() => { }));
    }

    [Fact]
    public void PoolDispose_WithGroupsHoldingItems_RunsEveryGroupItem()
    {
        SlimThreadPool pool = TestPools.Create(workers: 2);
        SlimThreadPoolGroup serial = pool.CreateGroup(new SlimGroupOptions { MaxItemsPerTurn = 3 });
        SlimThreadPoolGroup wide = pool.CreateGroup(new SlimGroupOptions { MaxConcurrency = 4 });
        var ledger = new Ledger(4_000);
        for (int i = 0; i < 4_000; i++)
        {
            int id = i;
            (i % 2 == 0 ? serial : wide).Queue(() => ledger.Mark(id));
        }

        Bounded.Run(pool.Dispose, "the pool's Dispose");
        ledger.AssertEachExactlyOnce();
        Assert.False(serial.TryQueue(() => { }));
        Bounded.Run(serial.Dispose, "the group's Dispose after its pool's");
    }

    [Fact]
    public void PoolAbandon_WithGroupsHoldingItems_HandsBackEachGroupItemNotRun()
    {
        SlimThreadPool pool = TestPools.Create(workers: 1);
        SlimThreadPoolGroup serial = pool.CreateGroup(new SlimGroupOptions { MaxItemsPerTurn = 5 });
        SlimThreadPoolGroup wide = pool.CreateGroup(new SlimGroupOptions { MaxConcurrency = 3 });
        using var started = new ManualResetEventSlim(false);
        using var release = new ManualResetEventSlim(false);
        const int Items = 600;
        var ledger = new Ledger(Items);

        serial.Queue(() =>
        {
            started.Set();
            release.Wait(Bounded.Timeout);
        });
        for (int i = 0; i < Items; i++)
        {
            int id = i;
            (i % 2 == 0 ? serial : wide).Queue(() => ledger.Mark(id));
        }

        Bounded.Wait(started, "the blocking group item");
        Task<ShutdownResult> shutdown = pool.ShutdownAsync(ShutdownMode.Abandon);
        release.Set();
        ShutdownResult result = Bounded.Result(shutdown, "the pool's abandon");

        Assert.Equal(ShutdownMode.Abandon, result.Mode);
        Assert.True(result.AbandonedCount > 0, "the abandon handed nothing back");
        Assert.All(result.AbandonedItems, item => Assert.IsType<Action>(item.Callback, exactMatch: false));
        int ranBefore = ledger.Total;
        Assert.Equal(Items, ranBefore + result.AbandonedCount);
        foreach (AbandonedWorkItem item in result.AbandonedItems)
        {
            item.Run();
        }

        ledger.AssertEachExactlyOnce();
        Bounded.Run(serial.Dispose, "the group's Dispose after the pool's abandon");
        Bounded.Run(wide.Dispose, "the other group's Dispose after the pool's abandon");
    }

    [Fact]
    public void Metrics_TwoGroups_EachReportsItsCompletedItemsUnderItsName()
    {
        using SlimThreadPool pool = TestPools.Create(workers: 2);
        using SlimThreadPoolGroup first = pool.CreateGroup(new SlimGroupOptions { Name = "first" });
        using SlimThreadPoolGroup second = pool.CreateGroup(new SlimGroupOptions { Name = "second", MaxConcurrency = 2 });
        var ledger = new Ledger(30);
        for (int i = 0; i < 30; i++)
        {
            int id = i;
            (i < 10 ? first : second).Queue(() => ledger.Mark(id));
        }

        ledger.WaitAll("the groups' items");
        Bounded.Until(() => first.CompletedWorkItemCount == 10 && second.CompletedWorkItemCount == 20, "the completion counts");
        var completed = new Dictionary<string, long>();
        using var listener = new MeterListener();
        listener.InstrumentPublished = (instrument, l) =>
        {
            if (instrument.Meter.Name == SlimThreadPool.MeterName && instrument.Name == "slimpool.group.work_item.completed"
                && instrument.Meter.Tags?.Any(t => t.Key == SlimThreadPool.PoolNameTag && Equals(t.Value, pool.Name)) == true)
            {
                l.EnableMeasurementEvents(instrument);
            }
        };
        listener.SetMeasurementEventCallback<long>((_, value, tags, _) =>
        {
            foreach (KeyValuePair<string, object?> tag in tags)
            {
                if (tag.Key == SlimThreadPool.GroupNameTag)
                {
                    completed[(string)tag.Value!] = value;
                }
            }
        });
        listener.Start();
        listener.RecordObservableInstruments();

        Assert.Equal(10, completed["first"]);
        Assert.Equal(20, completed["second"]);
    }

    [Fact]
    public void CreateGroup_DefaultsAndBadOptions_AreAsDocumented()
    {
        using SlimThreadPool pool = TestPools.Create(workers: 2);
        using SlimThreadPoolGroup group = pool.CreateGroup();
        Assert.Equal(1, group.MaxConcurrency);
        Assert.Equal(1, group.WorkerCount);
        Assert.Equal(WorkItemPriority.Normal, group.Priority);
        Assert.StartsWith($"{pool.Name} group ", group.Name, StringComparison.Ordinal);
        Assert.Same(pool, group.Pool);

        var options = new SlimGroupOptions();
        Assert.Equal("MaxConcurrency", Assert.Throws<ArgumentOutOfRangeException>(() => options.MaxConcurrency = 0).ParamName);
        Assert.Equal("MaxItemsPerTurn", Assert.Throws<ArgumentOutOfRangeException>(() => options.MaxItemsPerTurn = 0).ParamName);
        Assert.Equal("MaxTurnDuration", Assert.Throws<ArgumentOutOfRangeException>(() => options.MaxTurnDuration = TimeSpan.Zero).ParamName);
        Assert.Equal("Priority", Assert.Throws<ArgumentOutOfRangeException>(() => options.Priority = (WorkItemPriority)7).ParamName);
        Assert.Equal("mode", Assert.Throws<ArgumentOutOfRangeException>(() => { _ = group.ShutdownAsync((ShutdownMode)9); }).ParamName);

        pool.Dispose();
        Assert.Throws<ObjectDisposedException>(() => pool.CreateGroup());
    }
}
