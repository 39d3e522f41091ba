using SlimPool.Tests.Infrastructure;

namespace SlimPool.Tests.Reliability;

/// <summary>
/// Interrupts aimed at workers at any moment, as a watchdog's that lands after the item it meant has returned: a
/// worker waking a sibling met one in the wake-up's contended lock and died there, taking the process with it (the
/// default idle wait, 4 of 4 runs; an adversarial review). A failure here ends the test host.
/// </summary>
[Trait("Category", "Stress")]
public sealed class WorkerInterruptStressTests
{
    public static TheoryData<WorkQueueKind, IdleWaitKind> Cases() => TestPools.QueueAndIdleWaits();

    [Theory]
    [MemberData(nameof(Cases))]
    public void Workers_InterruptedAtRandomMomentsWhileWorkComesAndGoes_EveryItemRuns(WorkQueueKind queue, IdleWaitKind idleWait)
    {
        SlimThreadPool pool = TestPools.Create(queue, idleWait, workers: 2);
        var threads = new Thread?[8]; // filled lock-free: an item must not contend a lock the interrupter holds
        bool stop = false;
        Thread? interrupter = null;
        try
        {
            interrupter = new Thread(() =>
            {
                var random = new Random(1);
                while (!Volatile.Read(ref stop))
                {
                    foreach (Thread? t in threads)
                    {
                        t?.Interrupt();
                    }

                    Thread.SpinWait(random.Next(1, 2000));
                }
            }) { IsBackground = true };
            interrupter.Start();

            int rounds = StressSize.Pick(quick: 1_000, longRun: 30_000);
            int ran = 0;
            int expected = 0;
            for (int r = 0; r < rounds; r++)
            {
                int burst = 1 + (r % 4);
                expected += burst;
                for (int i = 0; i < burst; i++)
                {
                    pool.Queue(() =>
                    {
                        Interlocked.Increment(ref ran);
                        Thread me = Thread.CurrentThread;
                        for (int k = 0; k < threads.Length; k++)
                        {
                            Thread? t = Volatile.Read(ref threads[k]);
                            if (t == me || (t is null && Interlocked.CompareExchange(ref threads[k], me, null) is null))
                            {
                                break;
                            }
                        }
                    });
                }

                var waited = System.Diagnostics.Stopwatch.StartNew();
                while (Volatile.Read(ref ran) < expected)
                {
                    if (waited.Elapsed > TimeSpan.FromSeconds(10))
                    {
                        Volatile.Write(ref stop, true);
                        interrupter.Join(TimeSpan.FromSeconds(5));
                        string states = string.Join(", ", threads.Where(t => t is not null).Select(t => $"{t!.ManagedThreadId}:{t.ThreadState}"));
                        int missing = expected - Volatile.Read(ref ran);
                        Thread.Sleep(2000);
                        int missingLater = expected - Volatile.Read(ref ran);
                        pool.Queue(() => Interlocked.Increment(ref ran));
                        Thread.Sleep(1000);
                        Assert.Fail($"round {r}: {missing} items never ran; pending {pool.PendingWorkItemCount}; workers {states}; 2 s after the interrupts stopped {missingLater} still missing; after one more item {expected + 1 - Volatile.Read(ref ran)} missing");
                    }

                    Thread.Yield();
                }

                if (r % 16 == 0)
                {
                    Thread.Sleep(1); // let the workers park
                }
            }
        }
        finally
        {
            Volatile.Write(ref stop, true);
            interrupter?.Join(TimeSpan.FromSeconds(5));
            Bounded.Run(pool.Dispose, "the pool's dispose");
        }
    }
}

/// <summary>Items that leave their thread interrupted as they return, while work keeps coming (no outside interrupter).</summary>
[Trait("Category", "Stress")]
public sealed class ItemInterruptStressTests
{
    public static TheoryData<WorkQueueKind, IdleWaitKind> Cases() => TestPools.QueueAndIdleWaits();

    [Theory]
    [MemberData(nameof(Cases))]
    public void Items_LeaveTheirThreadInterruptedWhileWorkKeepsComing_EveryItemRunsAndNoWorkerDies(WorkQueueKind queue, IdleWaitKind idleWait)
    {
        SlimThreadPool pool = TestPools.Create(queue, idleWait, workers: 2);
        try
        {
            int ran = 0;
            int expected = 0;
            for (int r = 0, rounds = StressSize.Pick(quick: 5_000, longRun: 200_000); r < rounds; r++)
            {
                int burst = 1 + (r % 3);
                expected += burst;
                for (int i = 0; i < burst; i++)
                {
                    pool.Queue(() =>
                    {
                        Interlocked.Increment(ref ran);
                        WorkerInterrupts.LeaveOnWorker(pool); // left pending as the item returns (row 5: never kills the worker)
                    });
                }

                if (r % 8 == 0)
                {
                    Bounded.Until(() => Volatile.Read(ref ran) == expected, "the items so far");
                }
            }

            Bounded.Until(() => Volatile.Read(ref ran) == expected, "every item");
        }
        finally
        {
            Bounded.Run(pool.Dispose, "the pool's dispose");
        }
    }
}
