using System.Diagnostics;
using SlimPool.Tests.Infrastructure;
using Xunit.Abstractions;

namespace SlimPool.Tests.Lifecycle;

/// <summary>
/// A drain's workers and blocking scopes: the workers leave together, once none runs an item (ExitBarrier), so a blocked
/// item still has them, and they wait without spinning; a blocking scope starts a spare during a drain only for an item,
/// never for a thread hook and never once an abandon began; a Send given up on is skipped. Found by an adversarial review
/// of the first fix (spares during a shutdown and a 1 ms poll): each case failed on it.
/// </summary>
[Collection(RunsAloneCollection.Name)] // one case reads the process's CPU time
public sealed class DrainWithBlockedItemsTests(ITestOutputHelper output)
{
    private static readonly TimeSpan Short = TimeSpan.FromSeconds(10);

    // An exit hook that blocks inside RunBlocking: each exiting worker's hook started a spare, which exited at once and
    // started the next (up to 1,761 threads, and a shutdown that did not end within 10 s).
    [Theory]
    [InlineData(ShutdownMode.Drain, 0)]
    [InlineData(ShutdownMode.Abandon, 0)]
    [InlineData(ShutdownMode.Drain, 5)]
    [InlineData(ShutdownMode.Abandon, 5)]
    public void Shutdown_ExitHookInABlockingScope_CompletesAndStartsNoThread(ShutdownMode mode, int hookMs)
    {
        SlimThreadPool? pool = null;
        int starts = 0;
        bool stop = false; // ends the chain once the assertion window is over, so the failure does not outlive the test
        pool = new SlimThreadPool(new SlimThreadPoolOptions
        {
            WorkerCount = 1,
            Name = nameof(Shutdown_ExitHookInABlockingScope_CompletesAndStartsNoThread),
            OnThreadStart = _ => Interlocked.Increment(ref starts),
            OnThreadExit = _ =>
            {
                if (!Volatile.Read(ref stop))
                {
                    pool!.RunBlocking(() => Thread.Sleep(hookMs)); // e.g. flush a log
                }
            },
        });
        Bounded.Wait(pool.Run(() => { }), "an item");

        Task<ShutdownResult> shutdown = pool.ShutdownAsync(mode);
        bool completed = Completes(shutdown, Short);
        int startsSeen = Volatile.Read(ref starts);
        Volatile.Write(ref stop, true);
        Bounded.Result(shutdown, "the shutdown once the hook stops blocking");
        Assert.True(completed, $"{mode} did not complete in {Short.TotalSeconds} s; {startsSeen} worker threads had started (1 permanent)");
        Assert.Equal(1, startsSeen);
    }

    // A Send to a group once the drain's other workers (or an earlier spare) found nothing queued: they left, and no spare
    // could start (no free slot under MaxWorkers), so the callback never ran.
    [Theory]
    [InlineData(2, 2, false)] // MaxWorkers == WorkerCount: no spare at all; the idle worker must still be there
    [InlineData(1, 2, true)]  // one spare slot, taken by the spare an earlier scope of the item started
    [InlineData(1, 3, true)]
    public void GroupSend_DuringADrainOnceTheOtherWorkersFoundNothingQueued_RunsAndTheDrainCompletes(int workers, int maxWorkers, bool blockFirst)
    {
        string name = $"{nameof(GroupSend_DuringADrainOnceTheOtherWorkersFoundNothingQueued_RunsAndTheDrainCompletes)}-{workers}-{maxWorkers}";
        SlimThreadPool pool = new(new SlimThreadPoolOptions
        {
            WorkerCount = workers,
            MaxWorkers = maxWorkers,
            Name = name,
        });
        SlimThreadPoolGroup group = pool.CreateGroup(new SlimGroupOptions { MaxConcurrency = 1 });
        using var started = new ManualResetEventSlim(false);
        using var draining = new ManualResetEventSlim(false);
        int sent = 0;
        Exception? thrown = null;
        pool.Queue(() =>
        {
            started.Set();
            draining.Wait(Bounded.Timeout);
            if (blockFirst)
            {
                pool.RunBlocking(() => Thread.Sleep(50)); // starts a spare, which finds nothing queued once this scope ends
            }

            Thread.Sleep(100); // the other workers have looked at an empty queue since the drain began
            try
            {
                group.SynchronizationContext.Send(_ => Interlocked.Increment(ref sent), null);
            }
            catch (Exception exception)
            {
                thrown = exception;
            }
        });
        Bounded.Wait(started, "the item to start");

        Task<ShutdownResult> drain = pool.ShutdownAsync(ShutdownMode.Drain);
        draining.Set();
        bool completed = Completes(drain, Short);
        int live = pool.LiveWorkerCount, blockedCount = pool.BlockedWorkerCount, pending = pool.PendingWorkItemCount, groupPending = group.PendingWorkItemCount;
        if (!completed)
        {
            _ = pool.ShutdownAsync(ShutdownMode.Abandon); // clean-up: the Send gives up, the item ends
            Bounded.Result(drain, "the shutdown after the clean-up abandon");
        }

        Assert.True(completed, $"the drain did not complete in {Short.TotalSeconds} s: the Send's accepted callback waited with no worker to run it (live {live}, blocked {blockedCount}, group pending {groupPending}, pool pending {pending})");
        Assert.Null(thrown);
        Assert.Equal(1, Volatile.Read(ref sent));
    }

    // The spare of an item's blocking scope, started before the drain, whose idle wait times out during it: a closed pool
    // let it retire though the item it covered was still blocked, and a task the item then started on its group's
    // scheduler and waited for (no scope of its own, so no new spare) had nobody to run it (the guard off, so no other
    // spare comes; ExitBarrier.pml, BROKEN_RETIRECLOSED). The spare now stays, and runs it.
    [Theory]
    [InlineData(IdleWaitKind.SpinThenPark)]
    [InlineData(IdleWaitKind.AutoResetEvent)]
    public void GroupTask_StartedInABlockingScopeWhoseSpareTimesOutDuringTheDrain_RunsAndTheDrainCompletes(IdleWaitKind idleWait)
    {
        SlimThreadPool pool = new(new SlimThreadPoolOptions
        {
            WorkerCount = 1,
            IdleWait = idleWait,
            SpareWorkerIdleTimeout = TimeSpan.FromMilliseconds(1),
            StarvationTimeout = Timeout.InfiniteTimeSpan,
            Name = $"{nameof(GroupTask_StartedInABlockingScopeWhoseSpareTimesOutDuringTheDrain_RunsAndTheDrainCompletes)}-{idleWait}",
        });
        SlimThreadPoolGroup group = pool.CreateGroup(new SlimGroupOptions { MaxConcurrency = 1 });
        using var started = new ManualResetEventSlim(false);
        using var draining = new ManualResetEventSlim(false);
        using var ran = new ManualResetEventSlim(false);
        Exception? thrown = null;
        pool.Queue(() => pool.RunBlocking(() =>
        {
            started.Set();
            draining.Wait(Bounded.Timeout);
            Thread.Sleep(100); // many of the spare's idle timeouts, all during the drain
            try
            {
                _ = Task.Factory.StartNew(ran.Set, CancellationToken.None, TaskCreationOptions.None, group.TaskScheduler);
            }
            catch (Exception exception)
            {
                thrown = exception;
            }

            ran.Wait(Bounded.Timeout);
        }));
        Bounded.Wait(started, "the item to enter its scope");
        Bounded.Until(() => pool.LiveWorkerCount == 2, "the scope's spare to start");

        Task<ShutdownResult> drain = pool.ShutdownAsync(ShutdownMode.Drain);
        draining.Set();
        bool completed = Completes(drain, Short);
        int live = pool.LiveWorkerCount;
        bool taskRan = ran.IsSet;
        ran.Set(); // clean-up: the item ends
        Bounded.Result(drain, "the shutdown after the clean-up");

        Assert.Null(thrown);
        Assert.True(taskRan, $"the task the blocked item waited for never ran (live workers {live})");
        Assert.True(completed, $"the drain did not complete in {Short.TotalSeconds} s (live workers {live})");
    }

    // Each blocking scope of one item during a drain started a thread of its own (the last spare had left).
    [Fact]
    public void RepeatedBlockingScopes_DuringDrain_DoNotStartAThreadEach()
    {
        int starts = 0;
        SlimThreadPool pool = new(new SlimThreadPoolOptions
        {
            WorkerCount = 1,
            Name = nameof(RepeatedBlockingScopes_DuringDrain_DoNotStartAThreadEach),
            OnThreadStart = _ => Interlocked.Increment(ref starts),
        });
        using var draining = new ManualResetEventSlim(false);
        pool.Queue(() =>
        {
            draining.Wait(Bounded.Timeout);
            for (int i = 0; i < 20; i++)
            {
                pool.RunBlocking(() => Thread.Sleep(2));
                Thread.Sleep(20); // not in a scope: the spare finds nothing queued meanwhile
            }
        });

        Task<ShutdownResult> drain = pool.ShutdownAsync(ShutdownMode.Drain);
        draining.Set();
        Bounded.Result(drain, "the drain");
        Assert.True(starts <= 2, $"{starts} worker threads started for one item's 20 blocking scopes (1 permanent)");
    }

    // While one worker blocks during a drain, the others wait on a monitor, woken by publishes, not on a timer.
    [Fact]
    public void Drain_WhileOneOf64WorkersIsBlocked_TheOthersWaitWithoutSpinning()
    {
        const int workers = 64; // polling each millisecond, they used 56-64 % of a core here
        SlimThreadPool pool = new(new SlimThreadPoolOptions { WorkerCount = workers, Name = $"{nameof(Drain_WhileOneOf64WorkersIsBlocked_TheOthersWaitWithoutSpinning)}" });
        using var gate = new ManualResetEventSlim(false);
        using var blocked = new ManualResetEventSlim(false);
        pool.Queue(() =>
        {
            pool.RunBlocking(() =>
            {
                blocked.Set();
                gate.Wait(Bounded.Timeout);
            });
        });
        Bounded.Wait(blocked, "the item to block");
        Thread.Sleep(200);

        TimeSpan window = TimeSpan.FromSeconds(2);
        double idle = CpuOver(window);
        Task<ShutdownResult> drain = pool.ShutdownAsync(ShutdownMode.Drain);
        Thread.Sleep(100);
        double draining = CpuOver(window);
        gate.Set();
        Bounded.Result(drain, "the drain");

        output.WriteLine($"workers {workers}: CPU while one worker is blocked: before shutdown {idle:P1} of a core, during the drain {draining:P1} of a core");
        Assert.True(draining < idle + 0.25, $"workers {workers}: the drain's idle workers used {draining:P1} of a core (before shutdown {idle:P1}) while one worker was blocked");
    }

    // A worker that took the Send's callback just before its caller gave up (the pool's abandon began) skips it.
    [Fact]
    public void Send_GivenUpByItsCallerAfterAWorkerTookIt_IsSkippedAndCountedAsASkippedItem()
    {
        SlimThreadPool pool = new(new SlimThreadPoolOptions
        {
            WorkerCount = 1,
            FlowExecutionContext = true,
            Name = nameof(Send_GivenUpByItsCallerAfterAWorkerTookIt_IsSkippedAndCountedAsASkippedItem),
        });
        using var senderGaveUp = new ManualResetEventSlim(false);
        Task<ShutdownResult>? abandon = null;
        int fired = 0;
        // Runs when the worker switches into the Send's flowed context: after it dequeued the call, before SendCall.Execute.
        // It must not throw (an AsyncLocal handler that throws fails the process).
        var marker = new AsyncLocal<int>(args =>
        {
            if (args.ThreadContextChanged && args.CurrentValue == 42 && pool.IsOwnWorker && Interlocked.Exchange(ref fired, 1) == 0)
            {
                abandon = pool.ShutdownAsync(ShutdownMode.Abandon);
                senderGaveUp.Wait(Bounded.Timeout);
            }
        });

        int ran = 0;
        Exception? thrown = null;
        var sender = new Thread(() =>
        {
            marker.Value = 42;
            try
            {
                pool.SynchronizationContext.Send(_ => Interlocked.Increment(ref ran), null);
            }
            catch (Exception exception)
            {
                thrown = exception;
            }

            senderGaveUp.Set();
        })
        { IsBackground = true };
        sender.Start();
        Assert.True(sender.Join(Bounded.Timeout), "the Send did not return");
        Bounded.Until(() => Volatile.Read(ref abandon) is not null, "the abandon to be called");
        ShutdownResult result = Bounded.Result(abandon!, "the abandon");

        Assert.IsType<ObjectDisposedException>(thrown);
        Assert.Equal(0, Volatile.Read(ref ran));
        Assert.Empty(result.AbandonedItems);
        Assert.Equal(1, pool.CompletedWorkItemCount); // taken and skipped, as an item whose token was cancelled is
    }

    // After a cancelled drain returned, a still-running item's blocking scope started a spare (its start hook ran).
    [Fact]
    public void BlockingScope_AfterACancelledDrainReturned_StartsNoThread()
    {
        int starts = 0;
        SlimThreadPool pool = new(new SlimThreadPoolOptions
        {
            WorkerCount = 1,
            Name = nameof(BlockingScope_AfterACancelledDrainReturned_StartsNoThread),
            OnThreadStart = _ => Interlocked.Increment(ref starts),
        });
        using var started = new ManualResetEventSlim(false);
        using var returned = new ManualResetEventSlim(false);
        using var done = new ManualResetEventSlim(false);
        pool.Queue(() =>
        {
            started.Set();
            returned.Wait(Bounded.Timeout);
            pool.RunBlocking(() => Thread.Sleep(50));
            done.Set();
        });
        Bounded.Wait(started, "the item to start");
        using var cts = new CancellationTokenSource();
        Task<ShutdownResult> drain = pool.ShutdownAsync(ShutdownMode.Drain, cts.Token);
        cts.Cancel();
        Bounded.Result(drain, "the cancelled drain");
        int startsWhenReturned = Volatile.Read(ref starts);
        returned.Set();
        Bounded.Wait(done, "the item");
        Thread.Sleep(100);
        Assert.Equal(startsWhenReturned, Volatile.Read(ref starts));
    }

    // An item that waits, without a blocking scope, for an item queued behind it on the only worker: the starvation guard
    // starts a spare, during a drain as before it (it stopped when the shutdown began; the drain waited for the item's
    // own timeout).
    [Theory]
    [InlineData(IdleWaitKind.AutoResetEvent)]
    [InlineData(IdleWaitKind.SpinThenPark)]
    public void Drain_OnlyWorkerWaitsWithoutAScopeForAnItemQueuedBehindIt_TheGuardsSpareRunsItAndTheDrainCompletes(IdleWaitKind idleWait)
    {
        SlimThreadPool pool = new(new SlimThreadPoolOptions
        {
            WorkerCount = 1,
            IdleWait = idleWait,
            StarvationTimeout = TimeSpan.FromMilliseconds(100),
            Name = nameof(Drain_OnlyWorkerWaitsWithoutAScopeForAnItemQueuedBehindIt_TheGuardsSpareRunsItAndTheDrainCompletes),
        });
        using var started = new ManualResetEventSlim(false);
        using var behindRan = new ManualResetEventSlim(false);
        bool sawIt = false;
        pool.Queue(() =>
        {
            started.Set();
            sawIt = behindRan.Wait(TimeSpan.FromSeconds(15));
        });
        Bounded.Wait(started, "the item to start");
        pool.Queue(behindRan.Set);

        Task<ShutdownResult> drain = pool.ShutdownAsync(ShutdownMode.Drain);
        bool completed = Completes(drain, Short);
        Bounded.Result(drain, "the drain, once the item's own wait ended");
        Assert.True(completed, $"the drain did not complete within {Short.TotalSeconds} s: nobody ran the item queued behind the waiting one");
        Assert.True(sawIt);
    }

    // A drain whose guard watched a stuck worker (and may have started a spare) ends with no worker or guard left.
    [Fact]
    public void Drain_AfterTheGuardStartedASpare_LeavesNoThreadRunning()
    {
        var threads = new System.Collections.Concurrent.ConcurrentBag<Thread>();
        SlimThreadPool pool = new(new SlimThreadPoolOptions
        {
            WorkerCount = 1,
            StarvationTimeout = TimeSpan.FromMilliseconds(50),
            OnThreadStart = _ => threads.Add(Thread.CurrentThread),
            Name = nameof(Drain_AfterTheGuardStartedASpare_LeavesNoThreadRunning),
        });
        using var behindRan = new ManualResetEventSlim(false);
        pool.Queue(() => behindRan.Wait(Bounded.Timeout));
        pool.Queue(behindRan.Set);
        Bounded.Result(pool.ShutdownAsync(ShutdownMode.Drain), "the drain");
        Assert.True(threads.Count >= 2, "the guard started no spare");
        Assert.All(threads, thread => Assert.True(thread.Join(Bounded.Timeout), $"'{thread.Name}' still runs after the drain"));
        Assert.Equal(0, pool.LiveWorkerCount);
    }

    private static bool Completes(Task task, TimeSpan timeout) => ((IAsyncResult)task).AsyncWaitHandle.WaitOne(timeout);

    private static double CpuOver(TimeSpan window)
    {
        using var process = Process.GetCurrentProcess();
        TimeSpan before = process.TotalProcessorTime;
        var clock = Stopwatch.StartNew();
        Thread.Sleep(window);
        process.Refresh();
        return (process.TotalProcessorTime - before).TotalSeconds / clock.Elapsed.TotalSeconds;
    }
}
