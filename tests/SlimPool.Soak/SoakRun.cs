using System.Diagnostics;

namespace SlimPool.Soak;

/// <summary>
/// Rounds of mixed work (tiny, spinning, blocking, throwing, nested, async, bursts with idle gaps between) on a
/// pool that is replaced every few rounds, with a ledger per round and memory/thread samples throughout.
/// </summary>
internal sealed class SoakRun(TimeSpan duration, int seed)
{
    private readonly Random _random = new(seed);
    private readonly List<(double Seconds, long Memory, int Threads)> _samples = [];
    private BlockingTrials? _blockingTrials;
    private readonly CompositionTrials _compositionTrials = new();

    public bool Run(TextWriter log)
    {
        var clock = Stopwatch.StartNew();
        long items = 0, faults = 0;
        int rounds = 0;
        SlimThreadPool? pool = null;
        long expectedSkips = 0;
        var faultsSeen = new FaultCounter();
        _blockingTrials = new BlockingTrials(_random);
        try
        {
            while (clock.Elapsed < duration)
            {
                if (rounds % 8 == 0)
                {
                    // Churn: a fresh pool of a random configuration; the old one must drain and release its threads.
                    pool?.Dispose();
                    pool = new SlimThreadPool(new SlimThreadPoolOptions
                    {
                        WorkerCount = _random.Next(1, 2 * Environment.ProcessorCount + 1),
                        Queue = (WorkQueueKind)_random.Next(3),
                        IdleWait = (IdleWaitKind)_random.Next(2),
                        UnhandledException = faultsSeen.Report,
                    });
                }

                var round = new SoakRound(_random.Next(1_000, 40_000), _random.Next());
                round.QueueAll(pool!);
                expectedSkips += round.ExpectedSkips;
                if (rounds % 8 == 7)
                {
                    // The last round on each pool races its shutdown: every item must still run exactly once,
                    // on the pool or, handed back by an abandon, here.
                    if (!ShutDownMidRound(pool!, faultsSeen, log) || !CheckSkips(pool!, expectedSkips - _cancelledHandedBack, log))
                    {
                        return false;
                    }

                    pool = null;
                    expectedSkips = 0;
                    _cancelledHandedBack = 0;
                }

                if (!round.WaitAll(TimeSpan.FromSeconds(120)))
                {
                    log.WriteLine($"round {rounds}: timed out with {round.Outstanding} of {round.Count} items outstanding");
                    return false;
                }

                if (round.FirstBadSlot() is { } bad)
                {
                    log.WriteLine($"round {rounds}: item {bad.Id} ran {bad.Count} times (must be exactly once)");
                    return false;
                }

                items += round.Count;
                faults += round.Faults;
                rounds++;
                if (rounds % 4 == 0 && !_blockingTrials.RunOne(log))
                {
                    return false;
                }

                if (rounds % 4 == 2 && !_compositionTrials.RunOne(log))
                {
                    return false;
                }

                if (rounds % 20 == 0)
                {
                    Sample(clock);
                }

                Thread.Sleep(_random.Next(0, 4) == 0 ? _random.Next(50, 300) : 0); // idle gaps: workers park
            }
        }
        finally
        {
            pool?.Dispose();
        }

        Sample(clock);
        log.WriteLine($"rounds {rounds:N0}, items {items:N0} (exactly once each), faults thrown {faults:N0}, reported {faultsSeen.Count:N0}");
        log.WriteLine($"shutdowns racing a round: {string.Join(", ", _shutdowns.Select(s => $"{s.Key} {s.Value}"))}; items handed back by abandons and run here: {_handedBack:N0}");
        _blockingTrials.Report(log);
        _compositionTrials.Report(log);
        if (faultsSeen.Count != faults)
        {
            log.WriteLine("every thrown exception must be reported exactly once");
            return false;
        }

        return CheckDrift(log);
    }

    private readonly SortedDictionary<string, int> _shutdowns = new(StringComparer.Ordinal);
    private long _handedBack;

    private long _cancelledHandedBack; // items with a cancelled token that the last shutdown handed back: not the pool's skips

    private bool ShutDownMidRound(SlimThreadPool pool, FaultCounter faults, TextWriter log)
    {
        string how = _random.Next(4) switch
        {
            0 => "dispose",
            1 => "drain",
            2 => "abandon",
            _ => "drain-then-cancel",
        };
        _shutdowns[how] = _shutdowns.GetValueOrDefault(how) + 1;
        if (how == "dispose")
        {
            pool.Dispose();
            return true;
        }

        using var cancellation = new CancellationTokenSource();
        Task<ShutdownResult> shutdown = pool.ShutdownAsync(how == "abandon" ? ShutdownMode.Abandon : ShutdownMode.Drain, cancellation.Token);
        if (how == "drain-then-cancel")
        {
            Thread.Sleep(_random.Next(0, 5));
            cancellation.Cancel();
        }

        if (!shutdown.Wait(TimeSpan.FromSeconds(120)))
        {
            log.WriteLine($"shutdown ({how}) did not complete in 120 s");
            return false;
        }

        foreach (AbandonedWorkItem item in shutdown.Result.AbandonedItems)
        {
            _cancelledHandedBack += ReferenceEquals(item.Callback, SoakRound.CancelledCallback) ? 1 : 0;
            try
            {
                item.Run();
            }
            catch (Exception exception)
            {
                faults.Report(exception);
            }
        }

        _handedBack += shutdown.Result.AbandonedCount;
        pool.Dispose(); // after a shutdown: returns at once, changes nothing
        return true;
    }

    private static bool CheckSkips(SlimThreadPool pool, long expected, TextWriter log)
    {
        if (pool.CancelledWorkItemCount == expected)
        {
            return true;
        }

        log.WriteLine($"the pool skipped {pool.CancelledWorkItemCount} cancelled items; {expected} were queued with a cancelled token");
        return false;
    }

    private void Sample(Stopwatch clock)
    {
        long memory = GC.GetTotalMemory(forceFullCollection: true);
        using Process self = Process.GetCurrentProcess();
        _samples.Add((clock.Elapsed.TotalSeconds, memory, self.Threads.Count));
    }

    private bool CheckDrift(TextWriter log)
    {
        if (_samples.Count < 6)
        {
            log.WriteLine($"samples {_samples.Count}: too few to judge drift (run longer); memory {_samples[^1].Memory / 1e6:0.0} MB, threads {_samples[^1].Threads}");
            return true;
        }

        int third = _samples.Count / 3;
        double firstMemory = _samples.Take(third).Average(s => s.Memory), lastMemory = _samples.TakeLast(third).Average(s => s.Memory);
        double firstThreads = _samples.Take(third).Average(s => s.Threads), lastThreads = _samples.TakeLast(third).Average(s => s.Threads);
        log.WriteLine($"samples {_samples.Count}: memory first third {firstMemory / 1e6:0.0} MB, last third {lastMemory / 1e6:0.0} MB; threads {firstThreads:0.0} → {lastThreads:0.0}");

        // The pool is replaced every 8 rounds with up to 2 × cores workers, so the thread count moves within a
        // band; drift means growth beyond that band, and memory beyond noise.
        bool memoryDrift = lastMemory > (firstMemory * 1.5) + 16e6;
        bool threadDrift = lastThreads > firstThreads + (2 * Environment.ProcessorCount) + 4;
        if (memoryDrift || threadDrift)
        {
            log.WriteLine($"drift: {(memoryDrift ? "memory grows" : "")} {(threadDrift ? "threads grow" : "")}");
            return false;
        }

        return true;
    }
}
