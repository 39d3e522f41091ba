using SlimPool.Queues;
using SlimPool.Tests.Infrastructure;
using SlimPool.Workers;

namespace SlimPool.Tests.Pools;

/// <summary>
/// <see cref="ThreadContexts"/>: what an item changes on its thread is put back before the next item, read from the
/// thread's own fields on this runtime; the pool's workers and a group's turns (many items on one thread) use it.
/// </summary>
public sealed class ThreadContextsTests
{
    [Fact]
    public void Readable_ThisRuntime_ReadsTheThreadsFields()
    {
        // Failing here means the runtime's Thread lost the fields ThreadContexts reads: every check then takes the
        // public API's thread-local reads (correct, slower), and the accessors' names need a look.
        Assert.True(ThreadContexts.Readable);
    }

    [Fact]
    public void SetSynchronizationContext_OnTheCurrentThread_IsWhatSynchronizationContextCurrentReads()
    {
        var ownContext = new SynchronizationContext();
        SynchronizationContext? seenSet = null, readBack = null, seenCleared = ownContext;
        var thread = new Thread(() =>
        {
            Thread current = Thread.CurrentThread;
            ThreadContexts.SetSynchronizationContext(current, ownContext);
            seenSet = SynchronizationContext.Current;
            readBack = ThreadContexts.SynchronizationContextOf(current);
            ThreadContexts.SetSynchronizationContext(current, null);
            seenCleared = SynchronizationContext.Current;
        });
        thread.Start();
        Assert.True(thread.Join(Bounded.Timeout));

        Assert.Same(ownContext, seenSet);
        Assert.Same(ownContext, readBack);
        Assert.Null(seenCleared);
    }

    [Fact]
    public void RestoreAfterItem_ThreadInTheDefaultContext_ItemsAsyncLocalIsGoneAfter()
    {
        // A thread that never set an AsyncLocal runs in the runtime's default context (a null field): the context
        // restored after an item is that default, kept once for every such thread.
        var local = new AsyncLocal<string?>();
        string? seenAfter = "unset", seenOnSecondThread = "unset";
        void RunOne(Action<string?> record)
        {
            var contexts = new ThreadContexts(Thread.CurrentThread, synchronizationContext: null);
            var runner = new WorkItemRunner(unhandledException: null);
            runner.Execute(new QueuedWorkItem((Action)(() => local.Value = "leaked?"), null, null), contexts);
            record(local.Value);
        }

        var first = new Thread(() => RunOne(v => seenAfter = v));
        first.Start();
        Assert.True(first.Join(Bounded.Timeout));
        var second = new Thread(() => RunOne(v => seenOnSecondThread = v));
        second.Start();
        Assert.True(second.Join(Bounded.Timeout));

        Assert.Null(seenAfter);
        Assert.Null(seenOnSecondThread);
    }

    [Fact]
    public void RestoreAfterItem_ItemSetAsyncLocalSuppressedFlowAndSyncContext_AllPutBack()
    {
        var local = new AsyncLocal<string?>();
        var ownContext = new SynchronizationContext();
        string? seenAfter = "unset";
        bool flowSuppressedAfter = true;
        SynchronizationContext? syncAfter = null;
        var thread = new Thread(() =>
        {
            SynchronizationContext.SetSynchronizationContext(ownContext);
            var contexts = new ThreadContexts(ownContext);
            var runner = new WorkItemRunner(unhandledException: null);
            runner.Execute(new QueuedWorkItem((Action)(() =>
            {
                local.Value = "leaked?";
                ExecutionContext.SuppressFlow(); // never undone by the item
                SynchronizationContext.SetSynchronizationContext(new SynchronizationContext());
            }), null, null), contexts);
            seenAfter = local.Value;
            flowSuppressedAfter = ExecutionContext.IsFlowSuppressed();
            syncAfter = SynchronizationContext.Current;
        });
        thread.Start();
        Assert.True(thread.Join(Bounded.Timeout));

        Assert.Null(seenAfter);
        Assert.False(flowSuppressedAfter);
        Assert.Same(ownContext, syncAfter);
    }

    [Fact]
    public void GroupQueue_ItemSetsAsyncLocalSuppressesFlowAndSetsSyncContext_NextItemOfTheTurnSeesNone()
    {
        using SlimThreadPool pool = TestPools.Create(1);
        using SlimThreadPoolGroup group = pool.CreateGroup();
        var local = new AsyncLocal<string?>();
        using var hold = new ManualResetEventSlim();
        var seen = new TaskCompletionSource<(string?, bool, SynchronizationContext?)>(TaskCreationOptions.RunContinuationsAsynchronously);

        // Both items wait in the group behind the first, so one turn runs them back to back on one thread.
        group.Queue(() => hold.Wait(Bounded.Timeout));
        group.Queue(() =>
        {
            local.Value = "leaked?";
            ExecutionContext.SuppressFlow();
            SynchronizationContext.SetSynchronizationContext(new SynchronizationContext());
        });
        group.Queue(() => seen.SetResult((local.Value, ExecutionContext.IsFlowSuppressed(), SynchronizationContext.Current)));
        hold.Set();

        (string? value, bool suppressed, SynchronizationContext? context) = Bounded.Result(seen.Task, "the third item");
        Assert.Null(value);
        Assert.False(suppressed);
        Assert.Same(group.SynchronizationContext, context);
    }

    [Fact]
    public void Queue_ItemSuppressesFlowWithoutUndo_NextItemSeesFlowRestored()
    {
        using SlimThreadPool pool = TestPools.Create(1, o => o.FlowExecutionContext = true);
        using var first = new ManualResetEventSlim();
        var seen = new TaskCompletionSource<bool>(TaskCreationOptions.RunContinuationsAsynchronously);

        pool.Queue(() =>
        {
            ExecutionContext.SuppressFlow();
            first.Set();
        });
        Bounded.Wait(first, "the first item");
        pool.Queue(() => seen.SetResult(ExecutionContext.IsFlowSuppressed()));

        Assert.False(Bounded.Result(seen.Task, "the second item"));
    }

    [Fact]
    public void Execute_RestoreContextDiffersFromCallersAndItemChangesNothing_ThreadEndsInRestoreContext()
    {
        var local = new AsyncLocal<string?>();
        string? after = "unset";
        var thread = new Thread(() =>
        {
            ExecutionContext clean = ExecutionContext.Capture()!;
            local.Value = "caller";
            new WorkItemRunner(unhandledException: null).Execute(new QueuedWorkItem((Action)(() => { }), null, null), clean, null);
            after = local.Value;
        });
        thread.UnsafeStart();
        Assert.True(thread.Join(Bounded.Timeout));

        Assert.Null(after);
    }

    [Fact]
    public void Queue_StartHookLeavesFlowSuppressed_NextItemDoesNotSeeFirstItemsLocal()
    {
        var local = new AsyncLocal<string?>();
        using SlimThreadPool pool = TestPools.Create(1, o => o.OnThreadStart = _ => ExecutionContext.SuppressFlow());
        using var first = new ManualResetEventSlim();
        var seen = new TaskCompletionSource<(string?, bool)>(TaskCreationOptions.RunContinuationsAsynchronously);

        pool.Queue(() =>
        {
            local.Value = "leaked?";
            first.Set();
        });
        Bounded.Wait(first, "the first item");
        pool.Queue(() => seen.SetResult((local.Value, ExecutionContext.IsFlowSuppressed())));

        (string? value, bool suppressed) = Bounded.Result(seen.Task, "the second item");
        Assert.Null(value);
        Assert.True(suppressed); // the hook's state is every item's baseline, a suppressed flow included
    }
}
