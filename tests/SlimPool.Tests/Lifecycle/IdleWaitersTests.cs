using SlimPool.Lifecycle;
using SlimPool.Tests.Infrastructure;

namespace SlimPool.Tests.Lifecycle;

/// <summary>
/// <c>WaitForIdleAsync</c> (the pool's and a group's) completes a waiter only on a verdict of idle made after the waiter
/// registered: a verdict that an item accepted meanwhile has made stale must not complete a waiter that saw that item.
/// </summary>
public sealed class IdleWaitersTests
{
    [Fact]
    public void CompleteUpTo_AStaleVerdict_LeavesAWaiterThatRegisteredAfterIt()
    {
        var waiters = new IdleWaiters();
        bool idle = false;
        Task first = waiters.WaitAsync(() => idle, CancellationToken.None);
        long registered = waiters.Registered; // the owner, before its test, which finds it idle
        Task second = waiters.WaitAsync(() => idle, CancellationToken.None); // registers after it: an item is pending
        waiters.CompleteUpTo(registered);

        Assert.True(first.IsCompletedSuccessfully);
        Assert.False(second.IsCompleted);
        idle = true;
        waiters.CompleteUpTo(waiters.Registered);
        Assert.True(second.IsCompletedSuccessfully);
        Assert.False(waiters.Any);
    }

    /// <summary>
    /// The race end to end (found by an adversarial review: half the rounds failed, on a group and on the pool). Many
    /// earlier waiters keep the completion of one verdict busy under the waiters' lock, so the next verdict (idle, after
    /// a second item) is stale by the time it gets the lock: a third item was accepted and a new waiter saw it pending.
    /// </summary>
    [Theory]
    [InlineData(true)]
    [InlineData(false)]
    public async Task WaitForIdleAsync_VerdictMadeStaleByAnItemAcceptedMeanwhile_DoesNotCompleteALaterWaiter(bool group)
    {
        for (int round = 0; round < 3; round++)
        {
            using SlimThreadPool pool = TestPools.Create(3);
            using SlimThreadPoolGroup items = pool.CreateGroup(new SlimGroupOptions { MaxConcurrency = 2 });
            Action<Action> queue = group ? items.Queue : pool.Queue;
            Func<Task> waitForIdle = group ? () => items.WaitForIdleAsync() : () => pool.WaitForIdleAsync();
            using var releaseFirst = new ManualResetEventSlim();
            using var releaseLast = new ManualResetEventSlim();
            int secondDone = 0, lastDone = 0;

            queue(() => releaseFirst.Wait(Bounded.Timeout));
            var earlier = new Task[1_000_000];
            for (int i = 0; i < earlier.Length; i++)
            {
                earlier[i] = waitForIdle();
            }

            releaseFirst.Set();
            Bounded.Until(() => earlier[0].IsCompleted, "the first verdict's completions to begin");
            queue(() => Volatile.Write(ref secondDone, 1)); // its verdict of idle now waits for the lock
            Bounded.Until(() => Volatile.Read(ref secondDone) == 1, "the second item");
            Thread.SpinWait(2_000);
            queue(() => { releaseLast.Wait(Bounded.Timeout); Volatile.Write(ref lastDone, 1); });
            Task later = waitForIdle(); // sees the last item pending
            Bounded.Until(() => earlier[^1].IsCompleted, "the earlier waiters");
            Thread.Sleep(20);

            bool stale = later.IsCompleted && Volatile.Read(ref lastDone) == 0;
            releaseLast.Set();
            await later.WaitAsync(Bounded.Timeout);
            Assert.False(stale, $"round {round}: WaitForIdleAsync completed while an item it saw pending still ran");
        }
    }
}
