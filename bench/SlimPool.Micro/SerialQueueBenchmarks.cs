using System.Collections.Concurrent;
using System.Diagnostics;
using BenchmarkDotNet.Attributes;

namespace SlimPool.Micro;

/// <summary>
/// A serial queue's cost per item, as the comparison program's <c>serial-queues</c> cell pays it, without its work:
/// one outside thread posts empty items to one serial queue and waits until the last has run. SlimPool's serial queue
/// is a group of one (<see cref="SlimThreadPool.CreateGroup"/>); the baseline is the mailbox a .NET engineer writes by
/// hand on the built-in pool (a <see cref="ConcurrentQueue{T}"/>, a scheduled flag, runs of 32 items, queued with
/// <c>UnsafeQueueUserWorkItem(IThreadPoolWorkItem, preferLocal: false)</c>).
/// </summary>
/// <remarks>
/// <c>Streaming</c>: the producer and the queue's runner work at once, on two cores; the slower side sets the pace.
/// <c>Drain</c>: the items are queued while the runner cannot start (the pool's workers held, the mailbox not yet
/// scheduled), then released: the runner's cost per item alone.
/// </remarks>
[MemoryDiagnoser]
public class SerialQueueBenchmarks
{
    /// <summary>Items per invocation.</summary>
    public const int Items = 10_000;

    private SlimThreadPool? _pool;
    private SlimThreadPoolGroup? _group;
    private Mailbox _mailbox = null!;
    private readonly Counter _counter = new();

    [GlobalSetup(Targets = [nameof(MailboxStreaming), nameof(MailboxDrain)])]
    public void SetupMailbox() => _mailbox = new Mailbox();

    [GlobalSetup(Targets = [nameof(GroupStreaming), nameof(GroupDrain)])]
    public void SetupGroup()
    {
        _pool = new SlimThreadPool();
        _group = _pool.CreateGroup();
    }

    [GlobalCleanup]
    public void Cleanup()
    {
        _group?.Dispose();
        _pool?.Dispose();
        _pool = null;
    }

    [Benchmark(Baseline = true, Description = "mailbox on ThreadPool, streaming", OperationsPerInvoke = Items)]
    public void MailboxStreaming()
    {
        _counter.Reset();
        for (int i = 0; i < Items; i++)
        {
            _mailbox.Post(_counter);
        }

        _counter.WaitFor(Items);
    }

    [Benchmark(Description = "SlimPool group, streaming", OperationsPerInvoke = Items)]
    public void GroupStreaming()
    {
        _counter.Reset();
        SlimThreadPoolGroup group = _group!;
        for (int i = 0; i < Items; i++)
        {
            group.Queue(_counter);
        }

        _counter.WaitFor(Items);
    }

    [Benchmark(Description = "mailbox on ThreadPool, drain", OperationsPerInvoke = Items)]
    public void MailboxDrain()
    {
        _counter.Reset();
        for (int i = 0; i < Items; i++)
        {
            _mailbox.Hold(_counter);
        }

        _mailbox.Schedule();
        _counter.WaitFor(Items);
    }

    [Benchmark(Description = "SlimPool group, drain", OperationsPerInvoke = Items)]
    public void GroupDrain()
    {
        _counter.Reset();
        SlimThreadPool pool = _pool!;
        using var gate = new ManualResetEventSlim();
        var held = new CountdownEvent(pool.WorkerCount);
        for (int w = 0; w < pool.WorkerCount; w++)
        {
            pool.Queue(() =>
            {
                held.Signal();
                gate.Wait();
            });
        }

        if (!held.Wait(TimeSpan.FromSeconds(30)))
        {
            throw new TimeoutException("The pool's workers were not all held within 30 s.");
        }

        SlimThreadPoolGroup group = _group!;
        for (int i = 0; i < Items; i++)
        {
            group.Queue(_counter);
        }

        gate.Set();
        _counter.WaitFor(Items);
    }

    /// <summary>Counts the items run; one runner at a time (a serial queue), so a plain increment published by a volatile write.</summary>
    private sealed class Counter : IWorkItem
    {
        private static readonly long s_timeoutTicks = Stopwatch.Frequency * 30;

        private int _count;

        public void Reset() => Volatile.Write(ref _count, 0);

        public void Execute() => Volatile.Write(ref _count, _count + 1);

        // Spins (yielding now and then) until every item ran; throws rather than hang if the queue loses one.
        public void WaitFor(int count)
        {
            long start = Stopwatch.GetTimestamp();
            var spinner = default(SpinWait);
            while (Volatile.Read(ref _count) < count)
            {
                spinner.SpinOnce(sleep1Threshold: -1);
                if (Stopwatch.GetTimestamp() - start > s_timeoutTicks)
                {
                    throw new TimeoutException($"{count - Volatile.Read(ref _count)} of {count} items did not run within 30 s.");
                }
            }
        }
    }

    /// <summary>The hand-written mailbox of the comparison program's <c>serial-queues</c> cell.</summary>
    private sealed class Mailbox : IThreadPoolWorkItem
    {
        private const int Throughput = 32;

        private readonly ConcurrentQueue<IWorkItem> _items = new();
        private int _scheduled;

        public void Post(IWorkItem item)
        {
            _items.Enqueue(item);
            if (Volatile.Read(ref _scheduled) == 0 && Interlocked.CompareExchange(ref _scheduled, 1, 0) == 0)
            {
                ThreadPool.UnsafeQueueUserWorkItem(this, preferLocal: false);
            }
        }

        // Queues without scheduling: the drain case schedules once all are in.
        public void Hold(IWorkItem item) => _items.Enqueue(item);

        public void Schedule()
        {
            if (Interlocked.CompareExchange(ref _scheduled, 1, 0) == 0)
            {
                ThreadPool.UnsafeQueueUserWorkItem(this, preferLocal: false);
            }
        }

        public void Execute()
        {
            for (int i = 0; i < Throughput && _items.TryDequeue(out IWorkItem? item); i++)
            {
                item.Execute();
            }

            Interlocked.Exchange(ref _scheduled, 0);
            if (!_items.IsEmpty && Interlocked.CompareExchange(ref _scheduled, 1, 0) == 0)
            {
                ThreadPool.UnsafeQueueUserWorkItem(this, preferLocal: false);
            }
        }
    }
}
