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
        // kept it watching, or woke it, or sent it to search, each time with a fresh timeout, and it stayed for good.
        using SlimThreadPool pool = TestPools.Create(workers: 2, options => options.SpareWorkerIdleTimeout = TimeSpan.FromMilliseconds(50));
        Bounded.Wait(pool.Run(() => pool.RunBlocking(() => Bounded.Until(() => pool.LiveWorkerCount == 3, "the spare to start"))), "the blocking item");

        int stop = 0;
        long steps = 0;
        using var stopped = new ManualResetEventSlim();
        // Each step queues the next first, so the slot holds an entry nearly all the time.
        void Step()
        {
            Interlocked.Increment(ref steps);
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

        pool.Queue(Step);
        var elapsed = Stopwatch.StartNew();
        while (pool.LiveWorkerCount > 2 && elapsed.Elapsed < TimeSpan.FromSeconds(10))
        {
            Thread.Sleep(5);
        }

        int live = pool.LiveWorkerCount;
        long stepsWhenChecked = Interlocked.Read(ref steps);
        Volatile.Write(ref stop, 1);
        Bounded.Wait(stopped, "the chain to stop");
        output.WriteLine($"live workers {live} after {elapsed.Elapsed.TotalMilliseconds:F0} ms; the chain ran {stepsWhenChecked} steps by then");
        Assert.Equal(2, live);
        Assert.True(Interlocked.Read(ref steps) > stepsWhenChecked, "the chain stopped before the check: the spare was not idle beside a running chain");
    }

    private static long CpuNanoseconds(int threadId) =>
        ThreadCpuClock.TryRead(threadId, out ThreadCpuTimes times) ? times.OnCpuNanoseconds : throw new InvalidOperationException($"thread {threadId}'s clock could not be read");
}
