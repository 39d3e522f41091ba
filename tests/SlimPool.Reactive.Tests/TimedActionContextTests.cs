using System.Reactive.Concurrency;
using SlimPool.Tests.Infrastructure;

namespace SlimPool.Reactive.Tests;

/// <summary>
/// The context a timed action runs in: the one its Schedule call had (when the pool flows it), or with none the worker's,
/// never that of the timer it comes due on, which may be another caller's (guarantee 18).
/// </summary>
public sealed class TimedActionContextTests
{
    private static readonly AsyncLocal<string?> s_local = new();

    /// <summary>
    /// A delayed action scheduled under a suppressed flow carries no context, so (guarantee 18) it should start from the
    /// worker's context as the OnThreadStart hook left it. The timer fires on a built-in thread in the default context and
    /// TryQueueDue captures that one there: the action runs without the hook's value (the class of defect c83949b fixed
    /// for QueueAsync). An immediate Schedule under the same suppressed flow sees "hook".
    /// </summary>
    [Theory]
    [InlineData(false)]
    [InlineData(true)]
    public void Schedule_DelayedUnderSuppressedFlow_StartsFromTheStartHooksContext(bool onGroup)
    {
        using SlimThreadPool pool = TestPools.Create(1, o =>
        {
            o.FlowExecutionContext = true;
            o.OnThreadStart = _ => s_local.Value = "hook";
        });
        using SlimThreadPoolGroup group = pool.CreateGroup();
        SlimPoolScheduler scheduler = onGroup ? group.AsScheduler() : pool.AsScheduler();
        string? now = "not run", later = "not run";
        using var ranNow = new ManualResetEventSlim();
        using var ranLater = new ManualResetEventSlim();
        using (ExecutionContext.SuppressFlow())
        {
            scheduler.Schedule(() => { now = s_local.Value; ranNow.Set(); });
            scheduler.Schedule(TimeSpan.FromMilliseconds(20), () => { later = s_local.Value; ranLater.Set(); });
        }

        Bounded.Wait(ranNow, "the immediate action");
        Bounded.Wait(ranLater, "the delayed action");
        Assert.Equal("hook", now);
        Assert.Equal("hook", later);
    }

    /// <summary>
    /// Rx's queue for absolute times runs whichever short-term item is due first from whichever caller's timer fires.
    /// The scheduler wraps an action in its caller's context only when it has one to flow; a subscriber under a
    /// suppressed flow is not wrapped, so its action runs in whatever context the firing timer was armed in: another
    /// subscriber's.
    /// </summary>
    [Fact]
    public void TimerAtAbsoluteTimes_SuppressedSubscriberBesideAFlowingOne_NeverSeesTheOthersAsyncLocal()
    {
        using SlimThreadPool pool = TestPools.Create(2, o => o.FlowExecutionContext = true);
        SlimPoolScheduler scheduler = pool.AsScheduler();
        int leaked = 0;
        for (int round = 0; round < 40; round++)
        {
            DateTimeOffset at = scheduler.Now + TimeSpan.FromMilliseconds(20);
            using var done = new CountdownEvent(2);
            var flowing = new Thread(() =>
            {
                s_local.Value = "A";
                scheduler.Schedule(at + TimeSpan.FromMilliseconds(1), () => done.Signal());
            });
            var suppressed = new Thread(() =>
            {
                using (ExecutionContext.SuppressFlow())
                {
                    scheduler.Schedule(at, () =>
                    {
                        if (s_local.Value == "A")
                        {
                            Interlocked.Increment(ref leaked);
                        }

                        done.Signal();
                    });
                }
            });
            flowing.Start();
            suppressed.Start();
            flowing.Join();
            suppressed.Join();
            Bounded.Wait(done, "both actions");
        }

        Assert.Equal(0, Volatile.Read(ref leaked));
    }

    /// <summary>
    /// On a <see cref="ManagedThreadPool"/> that does not flow contexts, a timed action sees nothing of its caller's,
    /// whether its time is relative or absolute (the absolute one ran in its caller's context before).
    /// </summary>
    [Theory]
    [InlineData(false)]
    [InlineData(true)]
    public void Schedule_OnAManagedPoolThatDoesNotFlow_ActionSeesNoneOfItsCallersAsyncLocal(bool absolute)
    {
        using var pool = new ManagedThreadPool(flowExecutionContext: false);
        SlimPoolScheduler scheduler = pool.AsScheduler();
        string? seen = "not run";
        using var ran = new ManualResetEventSlim();
        var caller = new Thread(() =>
        {
            s_local.Value = "caller";
            Action action = () =>
            {
                seen = s_local.Value;
                ran.Set();
            };
            _ = absolute ? scheduler.Schedule(scheduler.Now + TimeSpan.FromMilliseconds(20), action) : scheduler.Schedule(TimeSpan.FromMilliseconds(20), action);
        });
        caller.Start();
        Assert.True(caller.Join(Bounded.Timeout));

        Bounded.Wait(ran, "the timed action");
        Assert.Null(seen);
    }
}
