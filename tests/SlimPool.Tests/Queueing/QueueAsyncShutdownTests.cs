using SlimPool.Tests.Infrastructure;

namespace SlimPool.Tests.Queueing;

/// <summary>
/// QueueAsync racing the pool's shutdown: an item whose wait for room ends as the shutdown begins is refused or accepted
/// before it, never accepted after the shutdown returned (guarantees 16 and 28).
/// </summary>
public sealed class QueueAsyncShutdownTests
{
    [ThreadStatic]
    private static bool t_handingBack;

    public static TheoryData<bool> Targets() => [false, true];

    /// <summary>
    /// QueueAsync waits for room; the room frees as a ShutdownAsync(Abandon) begins. Either the call fails with
    /// ObjectDisposedException, or the item was accepted before the shutdown and runs or comes back before the shutdown
    /// returns; it must never run after ShutdownAsync(Abandon) returned, nor be lost.
    /// </summary>
    [Theory]
    [MemberData(nameof(Targets))]
    public async Task QueueAsync_RoomFreesAsAnAbandonBegins_ItemNeverRunsAfterTheShutdownReturned(bool toGroup)
    {
        int late = 0, lost = 0, accepted = 0;
        for (int round = 0; round < 300; round++)
        {
            using SlimThreadPool pool = TestPools.Create(workers: 1, o => o.BoundedCapacity = 1);
            SlimThreadPoolGroup group = pool.CreateGroup();
            using var go = new ManualResetEventSlim();
            using var started = new ManualResetEventSlim();
            pool.Queue(() => { started.Set(); go.Wait(Bounded.Timeout); });
            Bounded.Wait(started, "the blocking item");
            pool.Queue(() => { }); // holds the one place
            int returned = 0, ran = 0;
            Action item = () =>
            {
                Interlocked.Increment(ref ran);
                if (Volatile.Read(ref returned) != 0 && !t_handingBack)
                {
                    Interlocked.Increment(ref late);
                }
            };
            ValueTask waiting = toGroup ? group.QueueAsync(item) : pool.QueueAsync(item);
            Assert.False(waiting.IsCompleted);
            go.Set();
            Thread.SpinWait(round * 20);
            ShutdownResult result = await pool.ShutdownAsync(ShutdownMode.Abandon).WaitAsync(Bounded.Timeout);
            Volatile.Write(ref returned, 1);
            bool ok;
            try
            {
                await waiting.AsTask().WaitAsync(Bounded.Timeout);
                ok = true;
            }
            catch (ObjectDisposedException)
            {
                ok = false;
            }

            t_handingBack = true;
            foreach (AbandonedWorkItem back in result.AbandonedItems)
            {
                back.Run();
            }

            t_handingBack = false;
            await Task.Delay(2);
            if (ok)
            {
                accepted++;
                if (Volatile.Read(ref ran) != 1)
                {
                    lost++;
                }
            }
        }

        Assert.True(late == 0 && lost == 0, $"accepted {accepted} of 300; ran after ShutdownAsync(Abandon) returned: {late}; accepted but not run exactly once (pool or hand-back): {lost}");
    }

    /// <summary>
    /// A group's QueueAsync waiting for room in a pool that stays full fails as soon as its group closes, as the pool's
    /// fails when the pool shuts down; it waited for the pool's room before, however long that took.
    /// </summary>
    [Theory]
    [InlineData(ShutdownMode.Drain)]
    [InlineData(ShutdownMode.Abandon)]
    public async Task GroupQueueAsync_GroupShutsDownWhileWaitingForRoom_FailsWithoutWaitingForRoom(ShutdownMode mode)
    {
        using SlimThreadPool pool = TestPools.Create(workers: 1, options => options.BoundedCapacity = 1);
        using var blocked = new BlockedWorkers(pool);
        pool.Queue(() => { }); // the one place taken, and kept while the worker is blocked
        SlimThreadPoolGroup group = pool.CreateGroup();
        bool ran = false;
        ValueTask waiting = group.QueueAsync(() => ran = true);
        Assert.False(waiting.IsCompleted);

        await group.ShutdownAsync(mode).WaitAsync(Bounded.Timeout);

        await Assert.ThrowsAsync<ObjectDisposedException>(() => waiting.AsTask().WaitAsync(Bounded.Timeout));
        Assert.False(blocked.Finished);
        blocked.Release();
        await pool.WaitForIdleAsync().WaitAsync(Bounded.Timeout);
        Assert.False(ran);
        Assert.True(pool.TryQueue(() => { }), "the slot the wait did not take is still the pool's");
    }

    /// <summary>
    /// QueueAsync cancelled by the caller's token while it waits for room: the exception carries the caller's token, so
    /// <c>catch (OperationCanceledException e) when (e.CancellationToken == token)</c> matches (a group's carried the
    /// token it linked with its shutdown's, before; found by an adversarial review).
    /// </summary>
    [Theory]
    [MemberData(nameof(Targets))]
    public async Task QueueAsync_CancelledByTheCallersTokenWhileWaiting_ExceptionCarriesTheCallersToken(bool toGroup)
    {
        using SlimThreadPool pool = TestPools.Create(workers: 1, options => options.BoundedCapacity = 1);
        using var blocked = new BlockedWorkers(pool);
        pool.Queue(() => { });
        SlimThreadPoolGroup group = pool.CreateGroup();
        using var cancellation = new CancellationTokenSource();
        ValueTask waiting = toGroup ? group.QueueAsync(() => { }, cancellation.Token) : pool.QueueAsync(() => { }, cancellation.Token);
        Assert.False(waiting.IsCompleted);

        await cancellation.CancelAsync();

        OperationCanceledException exception = await Assert.ThrowsAnyAsync<OperationCanceledException>(() => waiting.AsTask().WaitAsync(Bounded.Timeout));
        Assert.Equal(cancellation.Token, exception.CancellationToken);
    }
}
