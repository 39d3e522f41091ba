using System.Collections.Concurrent;
using SlimPool.Tests.Infrastructure;

namespace SlimPool.Tests.Queueing;

/// <summary>SlimPool's side of the built-in pool's item shapes: where <c>preferLocal</c> puts an item, and what queueing costs.</summary>
public sealed class NativeWorkItemTests
{
    [Fact]
    public void Queue_PreferLocalFalseOnAWorker_GoesBehindTheSharedQueueAndAfterTheWorkersOwnItems()
    {
        // One worker, work stealing: its own deque is looked at before the shared queue.
        using SlimThreadPool pool = TestPools.Create(workers: 1);
        var order = new ConcurrentQueue<string>();
        using var done = new CountdownEvent(4);

        pool.Queue(() =>
        {
            pool.Queue(static s => { s.Order.Enqueue("shared 1"); s.Done.Signal(); }, (Order: order, Done: done), preferLocal: false);
            pool.Queue(static s => { s.Order.Enqueue("shared 2"); s.Done.Signal(); }, (Order: order, Done: done), preferLocal: false);
            pool.Queue(new Recording(order, done, "local"), preferLocal: true);
            pool.Queue(static s => { s.Order.Enqueue("local typed"); s.Done.Signal(); }, (Order: order, Done: done), preferLocal: true);
        });

        Bounded.Wait(done, "the four items");
        string[] seen = [.. order];
        Assert.Equal(["shared 1", "shared 2"], seen.Where(s => s.StartsWith("shared", StringComparison.Ordinal)));
        Assert.Equal(2, Array.IndexOf(seen, "shared 1")); // both local items ran first, in the deque's order
    }

    [Fact]
    public void AbandonedItem_QueuedAsIThreadPoolWorkItem_IsHandedBackAsItself()
    {
        SlimThreadPool pool = TestPools.Create(workers: 1);
        using var blocked = new BlockedWorkers(pool);
        var item = new Recording(new ConcurrentQueue<string>(), null, "abandoned");
        pool.Queue(item, preferLocal: false);
        pool.Queue(static s => s.Order.Enqueue(s.Name), item, preferLocal: false);

        Task<ShutdownResult> shutdown = pool.ShutdownAsync(ShutdownMode.Abandon);
        blocked.Release();
        ShutdownResult result = Bounded.Result(shutdown, "the abandon");

        Assert.Equal(2, result.AbandonedCount);
        Assert.Contains(result.AbandonedItems, a => ReferenceEquals(a.Callback, item) && a.State is null);
        Assert.Contains(result.AbandonedItems, a => a.Callback is Action<Recording> && ReferenceEquals(a.State, item));
        foreach (AbandonedWorkItem abandoned in result.AbandonedItems)
        {
            abandoned.Run();
        }

        Assert.Equal(["abandoned", "abandoned"], item.Order);
    }

    [Fact]
    public void AbandonedItem_ValueStateCarrierReusedAfterRun_KeepsItsSnapshotAndRunsOnce()
    {
        SlimThreadPool pool = TestPools.Create(workers: 1);
        using SlimThreadPool other = TestPools.Create(workers: 1);
        var seen = new ConcurrentQueue<string>();
        Action<int> first = s => seen.Enqueue($"first {s}");
        Action<int> second = s => seen.Enqueue($"second {s}");
        using (var blocked = new BlockedWorkers(pool))
        {
            pool.Queue(first, 5, preferLocal: false);
            Task<ShutdownResult> shutdown = pool.ShutdownAsync(ShutdownMode.Abandon);
            blocked.Release();
            ShutdownResult result = Bounded.Result(shutdown, "the abandon");
            AbandonedWorkItem abandoned = Assert.Single(result.AbandonedItems);

            // Run on this thread, then queue another value-type item from the same thread (the carrier's spare).
            abandoned.Run();
            using var ran = new ManualResetEventSlim();
            other.Queue<int>(s => { second(s); ran.Set(); }, 7, preferLocal: false);
            Bounded.Wait(ran, "the other pool's item");

            Assert.Same(first, abandoned.Callback);
            Assert.Equal(5, abandoned.State);
            InvalidOperationException again = Assert.Throws<InvalidOperationException>(abandoned.Run);
            Assert.Contains("already been run", again.Message, StringComparison.Ordinal);
        }

        Assert.Equal(["first 5", "second 7"], seen);
        Assert.Throws<InvalidOperationException>(() => default(AbandonedWorkItem).Run());
    }

    [Theory]
    [InlineData(WorkQueueKind.LockFree)]
    [InlineData(WorkQueueKind.WorkStealing)]
    public void Queue_ThreadPoolWorkItemAndReferenceState_AllocateNothingOnTheProducer(WorkQueueKind kind)
    {
        const int Items = 200_000;
        using SlimThreadPool pool = TestPools.Create(configure: o => o.Queue = kind);
        var item = new Counting();
        Action<Counting> callback = static c => c.Execute();

        void Burst()
        {
            for (int i = 0; i < Items; i++)
            {
                pool.Queue(item, preferLocal: false);
                pool.Queue(callback, item, preferLocal: false);
            }
        }

        Burst(); // warm-up: JIT, queue growth
        Bounded.Until(() => item.Count == 2 * Items, "the warm-up burst");
        var allocations = new List<long>();
        for (int attempt = 1; attempt <= 3; attempt++)
        {
            long before = GC.GetAllocatedBytesForCurrentThread();
            Burst();
            allocations.Add(GC.GetAllocatedBytesForCurrentThread() - before);
            Bounded.Until(() => item.Count == 2 * Items * (attempt + 1), "the measured burst");
            if (allocations[^1] == 0)
            {
                break;
            }
        }

        Assert.True(allocations[^1] == 0, $"every measured burst allocated on the producer: {string.Join(", ", allocations)} bytes");
    }

    [Fact]
    public void Queue_ValueStateChainOnOneWorker_ReusesItsCarrierAndAllocatesNothing()
    {
        const int Steps = 100_000;
        using SlimThreadPool pool = TestPools.Create(workers: 1);

        // A chain of (step, start allocation) structs: each step queues the next from the worker with preferLocal. Up to
        // three chains, as the burst test above does: a chain that allocated per step would allocate 2.4 MB or more in
        // every one, while the runtime may allocate a few hundred bytes on the worker once (tiering, type loads) under load.
        var allocations = new List<long>();
        for (int attempt = 1; attempt <= 3; attempt++)
        {
            var finished = new TaskCompletionSource<long>(TaskCreationOptions.RunContinuationsAsynchronously);
            Action<(int Index, long AllocatedAtStart)>? step = null;
            step = s =>
            {
                if (s.Index == 100)
                {
                    s.AllocatedAtStart = GC.GetAllocatedBytesForCurrentThread(); // after warm-up
                }

                if (s.Index == Steps)
                {
                    finished.SetResult(GC.GetAllocatedBytesForCurrentThread() - s.AllocatedAtStart);
                    return;
                }

                pool.Queue(step!, (s.Index + 1, s.AllocatedAtStart), preferLocal: true);
            };

            pool.Queue(step, (0, 0L), preferLocal: true);
            allocations.Add(Bounded.Result(finished.Task, "the chain"));
            if (allocations[^1] == 0)
            {
                break;
            }
        }

        Assert.True(allocations[^1] == 0, $"every chain allocated on the worker: {string.Join(", ", allocations)} bytes");
    }

    private sealed class Counting : IThreadPoolWorkItem
    {
        private int _count;

        public int Count => Volatile.Read(ref _count);

        public void Execute() => Interlocked.Increment(ref _count);
    }

    private sealed class Recording(ConcurrentQueue<string> order, CountdownEvent? done, string name) : IThreadPoolWorkItem
    {
        public ConcurrentQueue<string> Order => order;

        public string Name => name;

        public void Execute()
        {
            order.Enqueue(name);
            done?.Signal();
        }
    }
}
