using SlimPool.Diagnostics;
using SlimPool.Queues;
using SlimPool.Scheduling;
using SlimPool.Tests.Infrastructure;
using SlimPool.Workers;
using Xunit.Abstractions;

namespace SlimPool.Tests.Scheduling;

/// <summary>
/// How the starvation guard's clocks read a worker whose thread has not yet published its id: starting, so runnable,
/// never the "nothing could be read" that counts as all blocked (<see cref="StarvationGuard.AddsSpare"/>), and never
/// the id of the slot's last occupant.
/// </summary>
public sealed class WorkerClocksTests(ITestOutputHelper output)
{
    [Fact]
    public void End_WorkerThatHasNotPublishedItsThreadId_CountsAsSampledAndRunnable()
    {
        if (!ThreadCpuClock.IsSupported)
        {
            output.WriteLine("NOT RUN: no per-thread CPU clock here (/proc/self/task/<tid>/schedstat)");
            return;
        }

        // Threads that never reach a worker's loop: the slot holds a thread whose id is still 0, as a worker's does
        // from its start until its first line. Before, such a period read 0 of 0 sampled and the guard started a spare
        // every timeout (a worker under a 0.2 CPU quota took two periods to start, and the pool grew to 3 threads).
        // Not disposed: a worker thread may reach its wait only after the test has set the event and returned.
        var release = new ManualResetEventSlim();
        var workers = new WorkerSet(1, 4, _ => new Thread(_ => release.Wait(Bounded.Timeout)) { IsBackground = true }, new LockFreeWorkQueue());
        try
        {
            workers.StartPermanentWorkers();
            var clocks = new WorkerClocks();
            clocks.Begin(workers);
            WorkerPeriod period = clocks.End(workers, wallNanoseconds: 50_000_000);

            Assert.Equal(new WorkerPeriod(Sampled: 1, Blocked: 0), period);
            Assert.False(StarvationGuard.AddsSpare(
                itemsCompleted: false, allBusy: false, period, processIdle: false, live: 2, workerCount: 1, cores: 2));
        }
        finally
        {
            release.Set();
        }
    }

    [Fact]
    public void TryStartSpare_ThreadFailsToStart_GivesTheSlotBackAndReturnsFalse()
    {
        // A start that throws (here a thread started twice; in production no memory for a stack, or a pids limit): the
        // slot held a thread that would never run, counted live and read as starting (runnable) by the guard for good,
        // which then declined to cover workers that really block; and the exception reached the guard's thread, which
        // ended the process (a probe under pids.max = 40 died with "Out of memory.").
        // Not disposed: a worker thread may reach its wait only after the test has set the event and returned.
        var release = new ManualResetEventSlim();
        var started = new Thread(() => { }) { IsBackground = true };
        started.Start();
        Assert.True(started.Join(Bounded.Timeout));
        int made = 0;
        var workers = new WorkerSet(1, 8, _ => Interlocked.Increment(ref made) == 2 ? started : new Thread(_ => release.Wait(Bounded.Timeout)) { IsBackground = true }, new LockFreeWorkQueue());
        try
        {
            workers.StartPermanentWorkers();

            Assert.False(workers.TryStartSpare());

            Assert.Equal(1, workers.LiveCount);
            Assert.Null(workers.Occupant(1));
            Assert.True(workers.TryStartSpare()); // the slot takes the next spare
            Assert.Equal(2, workers.LiveCount);
        }
        finally
        {
            release.Set();
        }
    }

    [Fact]
    public void TryStartSpare_InASlotALastSpareLeft_ShowsNoThreadIdUntilTheNewThreadPublishesIts()
    {
        // Not disposed: a worker thread may reach its wait only after the test has set the event and returned.
        var release = new ManualResetEventSlim();
        var workers = new WorkerSet(1, 4, _ => new Thread(_ => release.Wait(Bounded.Timeout)) { IsBackground = true }, new LockFreeWorkQueue());
        try
        {
            workers.StartPermanentWorkers();
            Assert.True(workers.TryStartSpare());
            workers.StateOf(1).OsThreadId = int.MaxValue; // the last spare's id: an exited thread's, whose clock cannot be read
            Assert.True(workers.TryRetire(out _));
            workers.Release(1);

            Assert.True(workers.TryStartSpare());

            Assert.Same(workers.StateOf(1), workers.Occupant(1));
            Assert.Equal(0, workers.StateOf(1).OsThreadId);
        }
        finally
        {
            release.Set();
        }
    }
}
