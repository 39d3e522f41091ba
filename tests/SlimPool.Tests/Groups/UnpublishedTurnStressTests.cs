using System.Collections.Concurrent;
using SlimPool.Queues;
using SlimPool.Tests.Infrastructure;

namespace SlimPool.Tests.Groups;

/// <summary>
/// A group's queue call returns behind a published turn, under load: publishers stalled at random inside the pool's
/// enqueue keep turns unpublished a while, and a drain begun mid-stream must run every item whose call returned before
/// it (an adversarial review's stress).
/// </summary>
[Trait("Category", "Stress")]
public sealed class UnpublishedTurnStressTests
{
    [ThreadStatic]
    private static bool t_producer;

    private static Thread Start(Action action)
    {
        var thread = new Thread(() => action()) { IsBackground = true };
        thread.Start();
        return thread;
    }

    private static void Join(params Thread[] threads) =>
        Bounded.Run(() => Assert.All(threads, t => Assert.True(t.Join(Bounded.Timeout))), "the test's threads");

    /// <summary>A queue whose enqueues stall at random before or after the entry goes in (a publisher preempted).</summary>
    private sealed class StallingQueue : IWorkQueue
    {
        private readonly LockFreeWorkQueue _inner = new();

        [ThreadStatic]
        private static Random? t_random;

        public bool IsEmpty => _inner.IsEmpty;

        public int Count => _inner.Count;

        private static void Stall()
        {
            Random random = t_random ??= new Random(Environment.CurrentManagedThreadId);
            int roll = random.Next(64);
            if (roll == 0)
            {
                Thread.Sleep(30); // longer than a drain of what is queued: a publisher preempted through it
            }
            else if (roll < 12)
            {
                Thread.SpinWait(random.Next(2000));
            }
        }

        public void Enqueue(in QueuedWorkItem item)
        {
            Stall();
            _inner.Enqueue(item);
            Stall();
        }

        public bool TryDequeue(out QueuedWorkItem item) => _inner.TryDequeue(out item);
    }

    public enum Producer
    {
        Queue,
        QueueBatch,
        Post,
        PoolWorkers, // the producers are items of another group, on the pool's own workers
    }

    // Producers queue without pause, their publishes stalled at random, while a drain begins at a random moment: every
    // item whose call returned before the drain began has run, on a worker, when the drain returns. With the wait
    // behind an unpublished turn removed, Queue, QueueBatch and Post at widths 1 and 2 fail within a few rounds.
    [Theory]
    [InlineData(Producer.Queue, 1, WorkItemPriority.Normal)]
    [InlineData(Producer.Queue, 2, WorkItemPriority.Normal)]
    [InlineData(Producer.Queue, 1, WorkItemPriority.High)]
    [InlineData(Producer.Queue, 3, WorkItemPriority.Low)]
    [InlineData(Producer.QueueBatch, 1, WorkItemPriority.Normal)]
    [InlineData(Producer.QueueBatch, 2, WorkItemPriority.Normal)]
    [InlineData(Producer.Post, 1, WorkItemPriority.Normal)]
    [InlineData(Producer.PoolWorkers, 2, WorkItemPriority.Normal)]
    public void ShutdownAsyncDrain_BegunWhileStalledProducersQueue_RunsEveryItemWhoseCallReturnedBeforeOnAWorker(Producer shape, int width, WorkItemPriority priority)
    {
        var failures = new ConcurrentQueue<string>();
        var random = new Random((width * 31) + (int)shape + (7 * (int)priority));
        int rounds = StressSize.Pick(quick: 8, longRun: 200);
        for (int round = 0; round < rounds; round++)
        {
            var queue = new StallingQueue();
            using var pool = new SlimThreadPool(new SlimThreadPoolOptions
            {
                WorkerCount = shape == Producer.PoolWorkers ? 3 : 2,
                QueueFactory = () => queue,
                StarvationTimeout = Timeout.InfiniteTimeSpan,
            });
            SlimThreadPoolGroup g = pool.CreateGroup(new SlimGroupOptions { MaxConcurrency = width, Priority = priority });
            SlimThreadPoolGroup carriers = pool.CreateGroup(new SlimGroupOptions { MaxConcurrency = 2 });
            const int Producers = 2, Items = 3000;
            var ran = new int[Producers * Items];
            var promised = new int[Producers * Items];
            int drainBegun = 0;
            using var done = new CountdownEvent(Producers);
            void Produce(int id)
            {
                t_producer = true;
                try
                {
                    for (int j = 0; j < Items; j++)
                    {
                        int slot = id * Items + j;
                        try
                        {
                            switch (shape)
                            {
                                case Producer.QueueBatch:
                                    g.QueueBatch(_ => Volatile.Write(ref ran[slot], t_producer ? 2 : 1), [null]);
                                    break;
                                case Producer.Post:
                                    g.SynchronizationContext.Post(_ => Volatile.Write(ref ran[slot], t_producer ? 2 : 1), null);
                                    break;
                                default:
                                    g.Queue(() => Volatile.Write(ref ran[slot], t_producer ? 2 : 1));
                                    break;
                            }
                        }
                        catch (InvalidOperationException)
                        {
                            return;
                        }

                        if (Interlocked.CompareExchange(ref drainBegun, 0, 0) == 0)
                        {
                            Volatile.Write(ref promised[slot], 1);
                        }
                    }
                }
                finally
                {
                    t_producer = false;
                    done.Signal();
                }
            }

            var threads = new List<Thread>();
            for (int p = 0; p < Producers; p++)
            {
                int id = p;
                if (shape == Producer.PoolWorkers)
                {
                    carriers.Queue(() => Produce(id));
                }
                else
                {
                    threads.Add(Start(() => Produce(id)));
                }
            }

            Thread.Sleep(random.Next(1, 15));
            Interlocked.Exchange(ref drainBegun, 1);
            Bounded.Result(pool.ShutdownAsync(ShutdownMode.Drain), "the drain");
            int[] ranAtDrain = new int[ran.Length];
            for (int i = 0; i < ran.Length; i++)
            {
                ranAtDrain[i] = Volatile.Read(ref ran[i]);
            }

            Join([.. threads]);
            Bounded.Wait(done, "the producers");
            for (int i = 0; i < ran.Length; i++)
            {
                if (Volatile.Read(ref promised[i]) == 1 && ranAtDrain[i] != 1)
                {
                    failures.Enqueue($"round {round}: item {i} (producer {i / Items}, #{i % Items}) {(ranAtDrain[i] == 0 ? "had not run" : "ran on a producer")} when the drain returned");
                }
            }
        }

        Assert.Empty(failures.Take(20));
    }
}
