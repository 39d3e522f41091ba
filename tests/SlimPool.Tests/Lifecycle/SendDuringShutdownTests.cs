using SlimPool.Tests.Infrastructure;

namespace SlimPool.Tests.Lifecycle;

/// <summary>
/// A drain runs what its blocked items wait for: a worker's item that calls Send on a group's SynchronizationContext
/// (posts and waits, in a blocking scope), or waits in a blocking scope for a callback posted to the pool later, while
/// the pool drains. The built-in pool runs both (it injects a thread); so must the drain, which starts no other spare.
/// </summary>
public sealed class SendDuringShutdownTests
{
    private static SlimThreadPool NewPool(WorkQueueKind queue, int workers, string name) =>
        new(new SlimThreadPoolOptions { WorkerCount = workers, Queue = queue, Name = name });

    [Theory]
    [InlineData(WorkQueueKind.LockFree)]
    [InlineData(WorkQueueKind.WorkStealing)]
    [InlineData(WorkQueueKind.Locked)]
    public void GroupSend_FromTheOnlyWorkerAsThePoolDrains_RunsAndTheDrainCompletes(WorkQueueKind queue)
    {
        // Not disposed at the end: a hung drain would hang the Dispose too; the bounded wait below fails instead.
        SlimThreadPool pool = NewPool(queue, workers: 1, nameof(GroupSend_FromTheOnlyWorkerAsThePoolDrains_RunsAndTheDrainCompletes));
        SlimThreadPoolGroup group = pool.CreateGroup(new SlimGroupOptions { MaxConcurrency = 1 });
        using var draining = new ManualResetEventSlim(false);
        int sent = 0;
        Exception? thrown = null;
        pool.Queue(() =>
        {
            draining.Wait(Bounded.Timeout);
            try
            {
                group.SynchronizationContext.Send(_ => Interlocked.Increment(ref sent), null);
            }
            catch (Exception exception)
            {
                thrown = exception;
            }
        });

        Task<ShutdownResult> drain = pool.ShutdownAsync(ShutdownMode.Drain);
        draining.Set();
        Bounded.Result(drain, "the drain");
        Assert.Null(thrown);
        Assert.Equal(1, Volatile.Read(ref sent));
    }

    [Theory]
    [InlineData(WorkQueueKind.LockFree, 1)]
    [InlineData(WorkQueueKind.WorkStealing, 2)]
    [InlineData(WorkQueueKind.Locked, 2)]
    public void RunBlocking_WaitingForACallbackPostedDuringTheDrain_RunsItAndTheDrainCompletes(WorkQueueKind queue, int workers)
    {
        // The item blocks (telling the pool) until a callback runs that another thread posts to the pool's context only
        // once the drain has begun and the idle workers have had time to look at an empty queue.
        SlimThreadPool pool = NewPool(queue, workers, nameof(RunBlocking_WaitingForACallbackPostedDuringTheDrain_RunsItAndTheDrainCompletes));
        using var started = new ManualResetEventSlim(false);
        using var posted = new ManualResetEventSlim(false);
        bool waited = false;
        pool.Queue(() =>
        {
            started.Set();
            waited = pool.RunBlocking(() => posted.Wait(Bounded.Timeout));
        });
        Bounded.Wait(started, "the item to start");

        Task<ShutdownResult> drain = pool.ShutdownAsync(ShutdownMode.Drain);
        Thread.Sleep(50);
        pool.SynchronizationContext.Post(_ => posted.Set(), null);
        Bounded.Result(drain, "the drain");
        Assert.True(waited, "the item's wait timed out: nobody ran the callback it waited for");
    }

    [Theory]
    [InlineData(WorkQueueKind.LockFree)]
    [InlineData(WorkQueueKind.WorkStealing)]
    [InlineData(WorkQueueKind.Locked)]
    public void GroupSend_FromAWorkerWhenThePoolAbandonsBeforeTheCallbackStarts_ThrowsAndTheAbandonCompletes(WorkQueueKind queue)
    {
        // The group's one turn is held by an item that waits for a gate, so the Send's callback waits in the group's queue;
        // the pool's abandon then begins. Its workers cannot all exit while the sender waits, and the callback, queued,
        // will not run before they do: the sender must give up.
        SlimThreadPool pool = NewPool(queue, workers: 2, nameof(GroupSend_FromAWorkerWhenThePoolAbandonsBeforeTheCallbackStarts_ThrowsAndTheAbandonCompletes));
        SlimThreadPoolGroup group = pool.CreateGroup(new SlimGroupOptions { MaxConcurrency = 1 });
        using var holding = new ManualResetEventSlim(false);
        using var gate = new ManualResetEventSlim(false);
        using var sent = new ManualResetEventSlim(false);
        int callbackRan = 0;
        Exception? thrown = null;
        group.Queue(() =>
        {
            holding.Set();
            gate.Wait(Bounded.Timeout);
        });
        Bounded.Wait(holding, "the group's item to hold its turn");
        pool.Queue(() =>
        {
            try
            {
                sent.Set();
                group.SynchronizationContext.Send(_ => Interlocked.Increment(ref callbackRan), null);
            }
            catch (Exception exception)
            {
                thrown = exception;
            }
        });
        Bounded.Wait(sent, "the Send to be called");
        Bounded.Until(() => group.PendingWorkItemCount == 1, "the Send's callback to wait in the group");

        Task<ShutdownResult> abandon = pool.ShutdownAsync(ShutdownMode.Abandon);
        gate.Set();
        Bounded.Result(abandon, "the abandon");
        Assert.IsType<ObjectDisposedException>(thrown);
        Assert.Equal(0, Volatile.Read(ref callbackRan));
    }
}
