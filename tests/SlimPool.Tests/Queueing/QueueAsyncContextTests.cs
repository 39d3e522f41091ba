using SlimPool.Tests.Infrastructure;

namespace SlimPool.Tests.Queueing;

/// <summary>
/// The context of an item that <c>QueueAsync</c> accepts only after waiting for room: the one its caller had at the call,
/// as for an item accepted at once, not the one of whichever thread the wait ends on (guarantee 18).
/// </summary>
public sealed class QueueAsyncContextTests
{
    private static readonly AsyncLocal<string?> s_local = new();

    public static TheoryData<bool> Targets() => [false, true];

    /// <summary>
    /// Under a suppressed flow the item carries no context, so it starts from the worker's, as the start hook left it. The
    /// wait's continuation runs on a built-in thread in the default context; publishing from there gave the item that
    /// context instead, without the hook's value (found by the composition property's thread hooks).
    /// </summary>
    [Theory]
    [MemberData(nameof(Targets))]
    public async Task QueueAsync_WaitsForRoomUnderSuppressedFlow_ItemStartsFromTheStartHooksContext(bool toGroup)
    {
        string? seen = "not run";
        using var ran = new ManualResetEventSlim();
        using SlimThreadPool pool = CreateBoundedPool(onThreadStart: _ => s_local.Value = "hook");
        SlimThreadPoolGroup? group = toGroup ? pool.CreateGroup() : null;
        var blocked = new BlockedWorkers(pool);
        pool.Queue(() => { }); // the one place taken

        ValueTask waiting;
        using (ExecutionContext.SuppressFlow())
        {
            waiting = QueueAsync(pool, group, () =>
            {
                seen = s_local.Value;
                ran.Set();
            });
        }

        Assert.False(waiting.IsCompleted);
        blocked.Release();
        await waiting.AsTask().WaitAsync(Bounded.Timeout);
        Bounded.Wait(ran, "the item queued after its wait");
        Assert.Equal("hook", seen);
    }

    /// <summary>With the flow on, the item sees its caller's AsyncLocal, whichever thread its wait ended on.</summary>
    [Theory]
    [MemberData(nameof(Targets))]
    public async Task QueueAsync_WaitsForRoomWithFlowingContext_ItemSeesItsCallersAsyncLocal(bool toGroup)
    {
        string? seen = "not run";
        using var ran = new ManualResetEventSlim();
        using SlimThreadPool pool = CreateBoundedPool(onThreadStart: _ => s_local.Value = "hook");
        SlimThreadPoolGroup? group = toGroup ? pool.CreateGroup() : null;
        var blocked = new BlockedWorkers(pool);
        pool.Queue(() => { });

        bool waited = false;
        using var called = new ManualResetEventSlim();
        Task waiting = Task.Run(async () =>
        {
            s_local.Value = "caller";
            ValueTask queued = QueueAsync(pool, group, () =>
            {
                seen = s_local.Value;
                ran.Set();
            });
            waited = !queued.IsCompleted;
            called.Set();
            await queued;
        });

        Bounded.Wait(called, "the QueueAsync call");
        Assert.True(waited);
        blocked.Release();
        await waiting.WaitAsync(Bounded.Timeout);
        Bounded.Wait(ran, "the item queued after its wait");
        Assert.Equal("caller", seen);
    }

    private static SlimThreadPool CreateBoundedPool(Action<int> onThreadStart, [System.Runtime.CompilerServices.CallerMemberName] string name = "") =>
        TestPools.Create(workers: 1, options =>
        {
            options.BoundedCapacity = 1;
            options.FlowExecutionContext = true;
            options.OnThreadStart = onThreadStart;
        }, name);

    private static ValueTask QueueAsync(SlimThreadPool pool, SlimThreadPoolGroup? group, Action callback) =>
        group is null ? pool.QueueAsync(callback) : group.QueueAsync(callback);
}
