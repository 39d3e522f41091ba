using System.Buffers;
using System.Buffers.Binary;
using System.IO.Pipelines;
using SlimPool.Tests.Infrastructure;

namespace SlimPool.Tests.Async;

/// <summary>
/// <c>pool.PipeScheduler</c> and <c>group.PipeScheduler</c> with a real <see cref="Pipe"/>: continuations run as the
/// pool's (or group's) items, without allocating, never refused for back-pressure, on the built-in pool after a shutdown.
/// </summary>
public sealed class PipeSchedulerTests
{
    public static TheoryData<WorkQueueKind, IdleWaitKind> Configurations => TestPools.QueueAndIdleWaits();

    [Theory]
    [MemberData(nameof(Configurations))]
    public async Task PipeScheduler_PipeWithPoolSchedulers_EveryMessageArrivesInOrderAndContinuationsRunOnThePool(WorkQueueKind queue, IdleWaitKind idleWait)
    {
        string name = $"pipe-{Guid.NewGuid():N}";
        using SlimThreadPool pool = TestPools.Create(2, o => { o.Queue = queue; o.IdleWait = idleWait; }, name);
        // Small thresholds: the writer's flushes wait for the reader, so both sides' continuations go through the scheduler.
        var pipe = new Pipe(new PipeOptions(
            readerScheduler: pool.PipeScheduler,
            writerScheduler: pool.PipeScheduler,
            pauseWriterThreshold: 256,
            resumeWriterThreshold: 128,
            useSynchronizationContext: false));
        const int Messages = 20_000;
        var writerSide = new Side(name);
        var readerSide = new Side(name);

        Task writer = Task.Run(async () =>
        {
            for (int i = 0; i < Messages; i++)
            {
                BinaryPrimitives.WriteInt32LittleEndian(pipe.Writer.GetSpan(4), i);
                pipe.Writer.Advance(4);
                await pipe.Writer.FlushAsync();
                writerSide.Note();
            }

            await pipe.Writer.CompleteAsync();
        });

        int expected = 0;
        while (true)
        {
            ReadResult result = await pipe.Reader.ReadAsync();
            readerSide.Note();
            ReadOnlySequence<byte> buffer = result.Buffer;
            while (buffer.Length >= 4)
            {
                int value = ReadInt(buffer.Slice(0, 4));
                Assert.Equal(expected++, value);
                buffer = buffer.Slice(4);
            }

            pipe.Reader.AdvanceTo(buffer.Start, buffer.End);
            if (result.IsCompleted)
            {
                break;
            }
        }

        await writer.WaitAsync(Bounded.Timeout);
        await pipe.Reader.CompleteAsync();
        Assert.Equal(Messages, expected);
        Assert.True(writerSide.ReachedPool && readerSide.ReachedPool, "both sides waited at least once and resumed on the pool");
        Assert.Null(writerSide.LeftPoolFor);
        Assert.Null(readerSide.LeftPoolFor);
    }

    [Fact]
    public void PipeScheduler_Pool_OneInstance()
    {
        using SlimThreadPool pool = TestPools.Create();

        Assert.Same(pool.PipeScheduler, pool.PipeScheduler);
    }

    [Fact]
    public void PipeScheduler_Schedule_AllocatesNothingPerContinuation()
    {
        using SlimThreadPool pool = TestPools.Create(1);
        PipeScheduler scheduler = pool.PipeScheduler;
        Action<object?> callback = static _ => { };
        const int Items = 10_000;
        long fewest = long.MaxValue;
        for (int burst = 0; burst < 3; burst++)
        {
            scheduler.Schedule(callback, null); // warm
            long before = GC.GetAllocatedBytesForCurrentThread();
            for (int i = 0; i < Items; i++)
            {
                scheduler.Schedule(callback, null);
            }

            fewest = Math.Min(fewest, GC.GetAllocatedBytesForCurrentThread() - before);
            Bounded.Wait(pool.WaitForIdleAsync(), "the continuations");
        }

        // A wrapper per continuation would be at least 24 bytes (240 KB here); a queue's ring growth may show up once.
        Assert.InRange(fewest, 0, Items * 24 / 2);
    }

    [Fact]
    public void PipeScheduler_SerialGroup_RunsContinuationsOneAtATimeInOrder()
    {
        using SlimThreadPool pool = TestPools.Create(2);
        using SlimThreadPoolGroup group = pool.CreateGroup(new SlimGroupOptions { MaxConcurrency = 1 });
        const int Items = 5_000;
        int running = 0;
        int overlaps = 0;
        var order = new List<int>(Items);
        using var done = new CountdownEvent(Items);
        for (int i = 0; i < Items; i++)
        {
            group.PipeScheduler.Schedule(
                state =>
                {
                    if (Interlocked.Increment(ref running) != 1)
                    {
                        Interlocked.Increment(ref overlaps);
                    }

                    order.Add((int)state!);
                    Thread.SpinWait(500);
                    Interlocked.Decrement(ref running);
                    done.Signal();
                },
                i);
        }

        Bounded.Wait(done, "the group's continuations");
        Assert.Equal(0, overlaps);
        Assert.Equal(Enumerable.Range(0, Items), order);
    }

    [Fact]
    public void PipeScheduler_FullBoundedPool_AcceptsTheContinuationWithoutBlockingOrThrowing()
    {
        using SlimThreadPool pool = TestPools.Create(1, o => o.BoundedCapacity = 1);
        using var release = new ManualResetEventSlim();
        using var ran = new ManualResetEventSlim();
        using var started = new ManualResetEventSlim();
        pool.Queue(() =>
        {
            started.Set();
            release.Wait(Bounded.Timeout);
        });

        // Running, so its capacity slot is back (a worker gives it back right after the dequeue, before the item runs; a
        // worker seen busy with nothing pending may be between the two).
        Bounded.Wait(started, "the worker to hold the blocking item");
        Assert.True(pool.TryQueue(() => { }));
        Assert.False(pool.TryQueue(() => { })); // full

        Bounded.Run(() => pool.PipeScheduler.Schedule(static r => ((ManualResetEventSlim)r!).Set(), ran), "Schedule on a full pool");
        release.Set();

        Bounded.Wait(ran, "the continuation");
    }

    [Fact]
    public void PipeScheduler_AfterShutdown_RunsTheContinuationOnTheBuiltInPool()
    {
        SlimThreadPool pool = TestPools.Create();
        PipeScheduler scheduler = pool.PipeScheduler;
        pool.Dispose();
        bool onBuiltInPool = false;
        using var ran = new ManualResetEventSlim();

        scheduler.Schedule(
            _ =>
            {
                onBuiltInPool = Thread.CurrentThread.IsThreadPoolThread;
                ran.Set();
            },
            null);

        Bounded.Wait(ran, "the late continuation");
        Assert.True(onBuiltInPool);
    }

    [Fact]
    public void PipeScheduler_NullAction_ThrowsNamingIt() =>
        Assert.Equal("action", Assert.Throws<ArgumentNullException>(() => TestPools.Create().PipeScheduler.Schedule(null!, null)).ParamName);

    private static int ReadInt(ReadOnlySequence<byte> four)
    {
        Span<byte> bytes = stackalloc byte[4];
        four.CopyTo(bytes);
        return BinaryPrimitives.ReadInt32LittleEndian(bytes);
    }

    // One side of the pipe. It starts on the test's thread or the built-in pool's; once a wait resumes it on the pool,
    // every later step is on the pool too (a continuation either runs inline, on the same thread, or through the
    // scheduler), so any other thread after that is a continuation the scheduler sent elsewhere.
    private sealed class Side(string poolName)
    {
        public bool ReachedPool { get; private set; }

        public string? LeftPoolFor { get; private set; }

        public void Note()
        {
            string? thread = Thread.CurrentThread.Name;
            if (thread?.StartsWith(poolName + " #", StringComparison.Ordinal) == true)
            {
                ReachedPool = true;
            }
            else if (ReachedPool)
            {
                LeftPoolFor ??= thread ?? $"unnamed thread {Environment.CurrentManagedThreadId}";
            }
        }
    }
}
