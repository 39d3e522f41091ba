using System.Collections.Concurrent;
using System.Diagnostics;
using SlimPool.Diagnostics;
using SlimPool.Scheduling;
using SlimPool.Tests.Infrastructure;
using Xunit.Abstractions;

namespace SlimPool.Tests.Scheduling;

/// <summary>
/// An idle worker does not spin or get woken for a sibling's slot entry, which is that sibling's to run next; it watches
/// the slots from a short park instead (<see cref="SpinThenParkIdleWait"/>, "Slots"), and still takes an entry whose
/// owner blocks. These read the workers' CPU clocks, so they run alone.
/// </summary>
[Collection(RunsAloneCollection.Name)]
public sealed class SlotWatchTests(ITestOutputHelper output)
{
    [Fact]
    public void WaitForWork_SiblingRunsAChainThroughItsSlot_IdleWorkerParksInsteadOfSpinning()
    {
        if (!ThreadCpuClock.IsSupported)
        {
            output.WriteLine("NOT RUN: no per-thread CPU clock here (/proc/self/task/<tid>/schedstat)");
            return;
        }

        // One chain of 5 µs items, each queuing the next from its worker (onto that worker's slot), for 400 ms. The other
        // worker has nothing it may take: it spun through the whole chain before (its CPU time as long as the chain's
        // wall time), and parks now, looking at the slots once a millisecond.
        var threadIds = new ConcurrentDictionary<int, int>();
        using SlimThreadPool pool = TestPools.Create(workers: 2, options => options.OnThreadStart = index => threadIds[index] = ThreadCpuClock.CurrentThreadId());
        Bounded.Until(() => threadIds.Count == 2, "both workers started");
        using var done = new ManualResetEventSlim();
        long end = 0;
        var chainThreads = new ConcurrentDictionary<int, bool>();

        void Step()
        {
            chainThreads[ThreadCpuClock.CurrentThreadId()] = true;
            long until = Stopwatch.GetTimestamp() + (Stopwatch.Frequency / 200_000);
            while (Stopwatch.GetTimestamp() < until)
            {
                Thread.SpinWait(10);
            }

            if (Stopwatch.GetTimestamp() < Volatile.Read(ref end))
            {
                pool.Queue(Step);
            }
            else
            {
                done.Set();
            }
        }

        Thread.Sleep(100); // both workers idle and parked before the chain starts
        long[] before = [.. threadIds.Values.Select(CpuNanoseconds)];
        var wall = Stopwatch.StartNew();
        Volatile.Write(ref end, Stopwatch.GetTimestamp() + (Stopwatch.Frequency * 4 / 10));
        pool.Queue(Step);
        Bounded.Wait(done, "the chain");
        long wallNanoseconds = (long)wall.Elapsed.TotalNanoseconds;
        long[] after = [.. threadIds.Values.Select(CpuNanoseconds)];

        long workersCpu = after.Zip(before, (a, b) => a - b).Sum();
        output.WriteLine($"workers' CPU {workersCpu / 1e6:F1} ms over {wallNanoseconds / 1e6:F1} ms of chain; the chain ran on {chainThreads.Count} thread(s)");
        Assert.True(
            workersCpu < wallNanoseconds * 1.4,
            $"the workers used {workersCpu / 1e6:F1} ms of CPU while one chain ran {wallNanoseconds / 1e6:F1} ms: the idle one did not park");
    }

    [Theory]
    [InlineData(2)]
    [InlineData(3)]
    public void WaitForWork_OwnerBlocksWithAnEntryOnItsSlot_AnIdleWorkerTakesIt(int workers)
    {
        // The item queues its continuation (onto its worker's slot) and waits for it without saying so. The other workers
        // are parked and watch nothing: the push wakes one, which watches the slots, finds the entry unmoved after a
        // watch and takes it. Repeated, so the watcher also meets pushes that come while it is already watching.
        using SlimThreadPool pool = TestPools.Create(workers);
        for (int round = 0; round < 20; round++)
        {
            using var ran = new ManualResetEventSlim();
            using var finished = new ManualResetEventSlim();
            var elapsed = Stopwatch.StartNew();
            pool.Queue(() =>
            {
                pool.Queue(ran.Set);
                finished.Set();
                Assert.True(ran.Wait(Bounded.Timeout), "the slot's entry was never taken while its owner waited for it");
            });
            Bounded.Wait(finished, "the blocking item");
            Bounded.Wait(ran, "the continuation");
            output.WriteLine($"round {round}: taken after {elapsed.Elapsed.TotalMilliseconds:F2} ms");
            Thread.Sleep(round % 3); // sometimes while the watcher still watches, sometimes after it parked
        }
    }

    [Fact]
    public void Spare_IdleWhileASiblingRunsAChainThroughItsSlot_Retires()
    {
        // A spare that takes nothing for its idle timeout retires, even while a sibling's slot entries come and go: they
        // kept it watching, or woke it, or sent it to search, each time with a fresh timeout, and it stayed for good. The
        // chain starts on a permanent worker (one that starts on the spare keeps it busy, and is started again); on a
        // loaded machine it may still move onto the spare now and then (its owner preempted for a whole watch), and the
        // spare is busy then, so what must not happen is the spare staying through 5 timeouts without a single step.
        const int IdleTimeoutMs = 50;
        var spares = new ConcurrentDictionary<int, bool>();
        using SlimThreadPool pool = TestPools.Create(workers: 2, options =>
        {
            options.SpareWorkerIdleTimeout = TimeSpan.FromMilliseconds(IdleTimeoutMs);
            options.OnThreadStart = index => spares[Environment.CurrentManagedThreadId] = index >= 2;
        });
        Bounded.Wait(pool.Run(() => pool.RunBlocking(() => Bounded.Until(() => pool.LiveWorkerCount == 3, "the spare to start"))), "the blocking item");

        int stop = 0;
        long steps = 0;
        long lastSpareStep = Stopwatch.GetTimestamp();
        ManualResetEventSlim stopped = new();
        bool IsSpare() => spares.TryGetValue(Environment.CurrentManagedThreadId, out bool spare) && spare;

        // Each step queues the next first, so the slot holds an entry nearly all the time.
        void Step()
        {
            Interlocked.Increment(ref steps);
            if (IsSpare())
            {
                Volatile.Write(ref lastSpareStep, Stopwatch.GetTimestamp());
            }

            if (Volatile.Read(ref stop) == 0)
            {
                pool.Queue(Step);
            }
            else
            {
                stopped.Set();
            }

            Thread.SpinWait(50);
        }

        for (int start = 1; ; start++)
        {
            // Every worker parked first: a wake from outside pops the one that parked last, the worker that left its
            // blocking scope after the spare had started (or, after a retry, the spare that ran the stopped chain).
            Thread.Sleep(50);
            bool onSpare = false;
            pool.Queue(() =>
            {
                onSpare = IsSpare();
                Step();
            });
            Bounded.Until(() => Interlocked.Read(ref steps) > 0, "the chain to start");
            if (!Volatile.Read(ref onSpare) || start == 20)
            {
                Assert.False(Volatile.Read(ref onSpare), "the chain started on the spare 20 times in a row");
                break;
            }

            Volatile.Write(ref stop, 1);
            Bounded.Wait(stopped, "the chain to stop");
            stopped.Dispose();
            stopped = new ManualResetEventSlim();
            Volatile.Write(ref stop, 0);
            Interlocked.Exchange(ref steps, 0);
        }

        Volatile.Write(ref lastSpareStep, Stopwatch.GetTimestamp());
        var elapsed = Stopwatch.StartNew();
        TimeSpan longestIdle = TimeSpan.Zero;
        while (pool.LiveWorkerCount > 2 && elapsed.Elapsed < TimeSpan.FromSeconds(10))
        {
            Thread.Sleep(5);
            TimeSpan idle = Stopwatch.GetElapsedTime(Volatile.Read(ref lastSpareStep));
            if (pool.LiveWorkerCount > 2 && idle > longestIdle)
            {
                longestIdle = idle;
            }

            if (longestIdle > TimeSpan.FromMilliseconds(5 * IdleTimeoutMs))
            {
                break;
            }
        }

        int live = pool.LiveWorkerCount;
        long stepsWhenChecked = Interlocked.Read(ref steps);
        Thread.Sleep(10);
        bool chainRunning = Interlocked.Read(ref steps) > stepsWhenChecked; // the spare left while the chain ran on
        Volatile.Write(ref stop, 1);
        Bounded.Wait(stopped, "the chain to stop");
        stopped.Dispose();
        output.WriteLine($"live workers {live} after {elapsed.Elapsed.TotalMilliseconds:F0} ms; the spare's longest stretch without a step while alive {longestIdle.TotalMilliseconds:F0} ms; the chain ran {stepsWhenChecked} steps by then");
        Assert.True(
            live == 2 || longestIdle <= TimeSpan.FromMilliseconds(5 * IdleTimeoutMs),
            $"the spare took no step for {longestIdle.TotalMilliseconds:F0} ms, five times its idle timeout, and stayed");
        Assert.True(chainRunning, "the chain was not running at the check");
    }

    private static long CpuNanoseconds(int threadId) =>
        ThreadCpuClock.TryRead(threadId, out ThreadCpuTimes times) ? times.OnCpuNanoseconds : throw new InvalidOperationException($"thread {threadId}'s clock could not be read");
}
