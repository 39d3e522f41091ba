using System.Globalization;
using SlimPool.Tests.Infrastructure;

namespace SlimPool.Tests.Reliability;

/// <summary>Promises of docs/guarantees.md that the contract suite does not already cover.</summary>
public sealed class PoolPromiseTests
{
    [Theory]
    [InlineData(WorkQueueKind.Locked, IdleWaitKind.SpinThenPark)]
    [InlineData(WorkQueueKind.Locked, IdleWaitKind.AutoResetEvent)]
    [InlineData(WorkQueueKind.LockFree, IdleWaitKind.SpinThenPark)]
    [InlineData(WorkQueueKind.LockFree, IdleWaitKind.AutoResetEvent)]
    [InlineData(WorkQueueKind.WorkStealing, IdleWaitKind.SpinThenPark)]
    [InlineData(WorkQueueKind.WorkStealing, IdleWaitKind.AutoResetEvent)]
    public void Queue_OneProducerOneWorker_RunsInQueueOrder(WorkQueueKind queue, IdleWaitKind idleWait)
    {
        const int Items = 20_000;
        var order = new List<int>(Items);
        using var done = new CountdownEvent(Items);
        // One worker means no spare either: the starvation guard could add a second worker on a loaded machine.
        using (var pool = new SlimThreadPool(new SlimThreadPoolOptions { WorkerCount = 1, Queue = queue, IdleWait = idleWait, StarvationTimeout = Timeout.InfiniteTimeSpan }))
        {
            for (int i = 0; i < Items; i++)
            {
                int id = i;
                pool.Queue(() =>
                {
                    order.Add(id); // one worker: no concurrent Add
                    done.Signal();
                });
            }

            Bounded.Wait(done, "every item");
        }

        Assert.Equal(Enumerable.Range(0, Items), order);
    }

    [Fact]
    public void Dispose_WhileItemsBlock_WaitsForThemAndRunsTheRest()
    {
        var pool = new SlimThreadPool(new SlimThreadPoolOptions { WorkerCount = 2 });
        using var release = new ManualResetEventSlim(false);
        using var blocked = new CountdownEvent(2);
        int after = 0;
        for (int i = 0; i < 2; i++)
        {
            pool.Queue(() =>
            {
                blocked.Signal();
                release.Wait(Bounded.Timeout);
            });
        }

        for (int i = 0; i < 100; i++)
        {
            pool.Queue(() => Interlocked.Increment(ref after));
        }

        Bounded.Wait(blocked, "both workers to block");
        var releaser = new Thread(() =>
        {
            Thread.Sleep(200);
            release.Set();
        });
        releaser.Start(); // our own thread, not a Timer: the built-in pool may be starved by parallel tests
        Bounded.Run(pool.Dispose, "Dispose while both workers block");
        Assert.True(releaser.Join(Bounded.Timeout));

        Assert.True(release.IsSet, "Dispose returned before the blocked items could finish");
        Assert.Equal(100, Volatile.Read(ref after));
    }

    [Theory]
    [InlineData(IdleWaitKind.SpinThenPark)]
    [InlineData(IdleWaitKind.AutoResetEvent)]
    public void IdlePool_WorkersBurnNoCpuAndStayAlive(IdleWaitKind idleWait)
    {
        if (!OperatingSystem.IsLinux())
        {
            return; // reads per-thread CPU time from /proc; the promise is checked on CI's Linux
        }

        const int Workers = 2;
        using var pool = new SlimThreadPool(new SlimThreadPoolOptions { WorkerCount = Workers, IdleWait = idleWait });
        var threadIds = new int[Workers];
        var threads = new Thread[Workers];
        using var here = new CountdownEvent(Workers);
        using var go = new ManualResetEventSlim(false);
        for (int i = 0; i < Workers; i++)
        {
            int slot = i;
            pool.Queue(() =>
            {
                threadIds[slot] = GetTid();
                threads[slot] = Thread.CurrentThread;
                here.Signal();
                go.Wait(Bounded.Timeout); // hold every worker so each reports its own thread
            });
        }

        Bounded.Wait(here, "every worker to report its thread id");
        go.Set();
        Thread.Sleep(200); // let the workers spin out and park
        long before = threadIds.Sum(CpuTicks);
        Thread.Sleep(1_000);
        long used = threadIds.Sum(CpuTicks) - before;

        // Clock ticks are 10 ms: an idle second may show one tick of scheduler accounting per thread, a spinning
        // worker would show ~100.
        Assert.True(used <= Workers, $"idle workers used {used} clock ticks (10 ms each) of CPU in one second");
        Assert.All(threads, t => Assert.True(t.IsAlive));
        Assert.Equal(Workers, pool.WorkerCount);
    }

    private static long CpuTicks(int tid)
    {
        // /proc/self/task/<tid>/stat: fields 14 and 15 (utime, stime) after the ")" that ends the thread name.
        string stat = File.ReadAllText($"/proc/self/task/{tid}/stat");
        string[] fields = stat[(stat.LastIndexOf(')') + 2)..].Split(' ');
        return long.Parse(fields[11], CultureInfo.InvariantCulture) + long.Parse(fields[12], CultureInfo.InvariantCulture);
    }

    // The calling thread's kernel id: /proc/thread-self links to "<pid>/task/<tid>".
    private static int GetTid() =>
        int.Parse(Path.GetFileName(new FileInfo("/proc/thread-self").LinkTarget!), CultureInfo.InvariantCulture);
}
