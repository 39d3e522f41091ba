using System.Collections.Concurrent;
using System.Runtime.CompilerServices;
using SlimPool.Queues;
using SlimPool.Tests.Infrastructure;

namespace SlimPool.Tests.Queues;

/// <summary>
/// Pushes from wherever an attached thread's frames can be, through the stack-address filter (<see cref="AttachedStacks"/>) in front of the work-stealing queue's
/// thread-local read: wherever the thread-local says "attached to this queue" (<see cref="WorkStealingWorkQueue.CurrentWorkerQueues"/>),
/// the filter must not send the push to the shared queue.
/// </summary>
public sealed class AttachedStacksPushTests
{
    private static QueuedWorkItem Noop() => new((Action)(static () => { }), null, null);

    // On a thread attached to the queue: pushes from the frame given, returns (attached per t_local, pushed own).
    private static (bool Attached, bool PushedOwn, bool FencedOwn) PushHere(WorkStealingWorkQueue queue)
    {
        bool attached = queue.CurrentWorkerQueues is not null;
        bool pushedOwn = queue.TryPushOwn((Action)(static () => { }), null, null);
        bool fencedOwn = !((IFencedEnqueue)queue).EnqueueFenced(Noop());
        return (attached, pushedOwn, fencedOwn);
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static (bool, bool, bool) PushDeep(WorkStealingWorkQueue queue, int depth)
    {
        Span<byte> pad = stackalloc byte[1024];
        pad[0] = (byte)depth;
        (bool, bool, bool) r = depth == 0 ? PushHere(queue) : PushDeep(queue, depth - 1);
        GC.KeepAlive(pad[0]);
        return r;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static void AttachDeep(WorkStealingWorkQueue queue, int index, int depth)
    {
        Span<byte> pad = stackalloc byte[1024];
        pad[0] = (byte)depth;
        if (depth == 0)
        {
            queue.AttachWorker(index);
        }
        else
        {
            AttachDeep(queue, index, depth - 1);
        }

        GC.KeepAlive(pad[0]);
    }

    private static T OnThread<T>(Func<T> body, int maxStackSize)
    {
        T result = default!;
        Exception? failure = null;
        var thread = new Thread(() =>
        {
            try
            {
                result = body();
            }
            catch (Exception e)
            {
                failure = e;
            }
        }, maxStackSize) { IsBackground = true };
        thread.Start();
        Assert.True(thread.Join(Bounded.Timeout), "the test thread ended");
        if (failure is not null)
        {
            throw new InvalidOperationException("the test thread failed", failure);
        }

        return result;
    }

    [Theory]
    [InlineData(256 * 1024, 150)]
    [InlineData(1024 * 1024, 800)]
    [InlineData(16 * 1024 * 1024, 12000)]
    public void TryPushOwn_AttachedShallowPushingFromADeepFrame_GoesToItsOwnQueues(int stackSize, int depth)
    {
        var queue = new WorkStealingWorkQueue();
        (bool attached, bool pushedOwn, bool fencedOwn) = OnThread(() =>
        {
            queue.AttachWorker(0);
            var r = PushDeep(queue, depth);
            queue.DetachWorker(0);
            return r;
        }, stackSize);
        Assert.True(attached);
        Assert.True(pushedOwn, "TryPushOwn from a deep frame");
        Assert.True(fencedOwn, "EnqueueFenced from a deep frame");
    }

    [Theory]
    [InlineData(256 * 1024, 150)]
    [InlineData(16 * 1024 * 1024, 12000)]
    public void TryPushOwn_AttachedDeepPushingFromAShallowFrame_GoesToItsOwnQueues(int stackSize, int depth)
    {
        var queue = new WorkStealingWorkQueue();
        (bool attached, bool pushedOwn, bool fencedOwn) = OnThread(() =>
        {
            AttachDeep(queue, 0, depth);
            var r = PushHere(queue);
            queue.DetachWorker(0);
            return r;
        }, stackSize);
        Assert.True(attached);
        Assert.True(pushedOwn);
        Assert.True(fencedOwn);
    }

    // Many threads of mixed stack sizes attach at once (each widening one end while others read) and push at once.
    [Fact]
    public void TryPushOwn_ThreadsAttachingAndPushingAtOnce_EachFindsItself()
    {
        for (int round = 0; round < 20; round++)
        {
            var queue = new WorkStealingWorkQueue();
            const int threads = 12;
            var failures = new ConcurrentQueue<string>();
            using var start = new Barrier(threads);
            var all = new Thread[threads];
            for (int i = 0; i < threads; i++)
            {
                int index = i;
                int size = (index % 3) switch { 0 => 256 * 1024, 1 => 2 * 1024 * 1024, _ => 8 * 1024 * 1024 };
                all[i] = new Thread(() =>
                {
                    try
                    {
                        start.SignalAndWait(Bounded.Timeout);
                        queue.AttachWorker(index);
                        for (int k = 0; k < 50; k++)
                        {
                            var r = PushDeep(queue, k % 7 * 10);
                            if (!r.Item1 || !r.Item2 || !r.Item3)
                            {
                                failures.Enqueue($"thread {index} push {k}: {r}");
                            }
                        }
                    }
                    catch (Exception e)
                    {
                        failures.Enqueue(e.ToString());
                    }
                }, size) { IsBackground = true };
                all[i].Start();
            }

            foreach (Thread t in all)
            {
                Assert.True(t.Join(Bounded.Timeout), "the test thread ended");
            }

            Assert.Empty(failures);
        }
    }

    // A thread that is attached, then detaches: its next push goes shared (t_local decides, not the range).
    [Fact]
    public void TryPushOwn_DetachedThreadInsideTheRange_GoesToTheSharedQueue()
    {
        var queue = new WorkStealingWorkQueue();
        (bool before, bool after) = OnThread(() =>
        {
            queue.AttachWorker(0);
            bool b = queue.TryPushOwn((Action)(static () => { }), null, null);
            while (queue.TryDequeue(out _))
            {
            }

            queue.DetachWorker(0);
            bool a = queue.TryPushOwn((Action)(static () => { }), null, null);
            return (b, a);
        }, 512 * 1024);
        Assert.True(before);
        Assert.False(after);
    }

    // A thread inside this queue's range (it was attached here once) that is now attached to another queue: its
    // thread-local names the other queue, so its push here goes to the shared queue.
    [Fact]
    public void TryPushOwn_ThreadAttachedToAnotherQueue_IsNotAttachedHere()
    {
        var mine = new WorkStealingWorkQueue();
        var other = new WorkStealingWorkQueue();
        (bool mineBefore, bool mineAfter, bool otherAfter) = OnThread(() =>
        {
            mine.AttachWorker(0);
            bool before = mine.TryPushOwn((Action)(static () => { }), null, null);
            while (mine.TryDequeue(out _))
            {
            }

            mine.DetachWorker(0);
            other.AttachWorker(0);
            bool after = mine.TryPushOwn((Action)(static () => { }), null, null);
            bool onOther = other.TryPushOwn((Action)(static () => { }), null, null);
            return (before, after, onOther);
        }, 512 * 1024);
        Assert.True(mineBefore);
        Assert.False(mineAfter);
        Assert.True(otherAfter);
    }

    private static SlimThreadPool NewPool(WorkStealingWorkQueue queue, int workers, Action<int>? onStart = null) =>
        new(new SlimThreadPoolOptions { WorkerCount = workers, QueueFactory = () => queue, OnThreadStart = onStart });

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static (bool, bool, bool) Recurse(int depth, Func<(bool, bool, bool)> body)
    {
        Span<byte> pad = stackalloc byte[512];
        pad[0] = (byte)depth;
        var r = depth == 0 ? body() : Recurse(depth - 1, body);
        GC.KeepAlive(pad[0]);
        return r;
    }

    [Fact]
    public void Queue_PoolWorkerInDeepRecursionAndAfterAnAwait_PushesOntoItsOwnQueues()
    {
        var queue = new WorkStealingWorkQueue();
        using SlimThreadPool pool = NewPool(queue, workers: 2);
        var results = new ConcurrentQueue<(string What, (bool, bool, bool) R)>();
        using var done = new CountdownEvent(3);
        pool.Queue(() =>
        {
            results.Enqueue(("deep", Recurse(1500, () => PushHere(queue))));
            done.Signal();
        });
        pool.Queue(() =>
        {
            results.Enqueue(("shallow", PushHere(queue)));
            done.Signal();
        });
        pool.Queue(() =>
        {
            async Task Body()
            {
                await Task.Yield();
                results.Enqueue(("async resume", PushHere(queue)));
                done.Signal();
            }

            _ = Body();
        });
        Bounded.Wait(done, "the three items");
        Assert.Equal(3, results.Count);
        foreach ((string what, (bool attached, bool own, bool fencedOwn)) in results)
        {
            Assert.True(attached, $"{what}: ran off the pool's workers");
            Assert.True(own && fencedOwn, $"{what}: the worker's push went to the shared queue");
        }
    }

    // OnThreadStart runs before AttachWorker: a push there is no worker's (t_local null), and must not break the worker.
    [Fact]
    public void Queue_FromTheStartHookThenFromAnItem_OnlyTheItemsPushIsOwn()
    {
        var queue = new WorkStealingWorkQueue();
        var hookResults = new ConcurrentQueue<(bool, bool, bool)>();
        using SlimThreadPool pool = NewPool(queue, workers: 2, onStart: _ => hookResults.Enqueue(PushHere(queue)));
        var item = new TaskCompletionSource<(bool, bool, bool)>(TaskCreationOptions.RunContinuationsAsynchronously);
        pool.Queue(() => item.SetResult(PushHere(queue)));
        (bool attached, bool own, bool fencedOwn) = Bounded.Result(item.Task, "the item");
        Assert.True(attached);
        Assert.True(own && fencedOwn);
        Bounded.Until(() => hookResults.Count == 2, "both hooks");
        foreach ((bool hookAttached, bool hookOwn, bool hookFencedOwn) in hookResults)
        {
            Assert.False(hookAttached);
            Assert.False(hookOwn || hookFencedOwn);
        }
    }

    // A spare started by a blocking scope attaches later than the workers (a new stack, maybe outside the first range).
    [Fact]
    public void Queue_SpareStartedForABlockingScope_PushesOntoItsOwnQueues()
    {
        var queue = new WorkStealingWorkQueue();
        using SlimThreadPool pool = NewPool(queue, workers: 1);
        using var entered = new ManualResetEventSlim();
        using var release = new ManualResetEventSlim();
        pool.Queue(() => pool.RunBlocking(() =>
        {
            entered.Set();
            release.Wait(Bounded.Timeout);
        }));
        Bounded.Wait(entered, "the blocking item");
        var onSpare = new TaskCompletionSource<(bool, bool, bool)>(TaskCreationOptions.RunContinuationsAsynchronously);
        pool.Queue(() => onSpare.SetResult(Recurse(600, () => PushHere(queue))));
        (bool attached, bool own, bool fencedOwn) = Bounded.Result(onSpare.Task, "the item on the spare");
        release.Set();
        Assert.True(attached);
        Assert.True(own && fencedOwn, "the spare's push went shared");
    }
}
