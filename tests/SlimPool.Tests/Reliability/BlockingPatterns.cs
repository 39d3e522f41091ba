using System.Diagnostics;
using SlimPool.Scheduling;

namespace SlimPool.Tests.Reliability;

/// <summary>
/// Blocking patterns that real code runs on a pool without telling it that it blocks: items that wait for each
/// other, sync-over-async, parents waiting on children, lock convoys, blocking continuations. Each pattern
/// completes only if the pool eventually gives its waiting items threads. Shared by the differential test
/// suite (<c>BlockingPatternTests</c>) and the soak, so it depends on nothing but <see cref="IThreadPool"/>.
/// </summary>
/// <remarks>
/// Every wait inside an item observes the pattern's abort token, so a pattern that misses its deadline releases
/// its blocked items before it reports the failure, and the pool can still be disposed.
/// </remarks>
public static class BlockingPatterns
{
    // Each pattern: its name, how it starts on a pool of `workers` workers, and the most threads it can need at once to
    // complete there (its items that may all be blocked together, plus the one that releases them).
    private static readonly Pattern[] s_patterns =
    [
        new("mutual-burst-2x-idle", (pool, w, abort) => MutualBurst(pool, 2 * w, busyFirst: 0, abort), w => 2 * w),
        new("mutual-burst-4x-idle", (pool, w, abort) => MutualBurst(pool, 4 * w, busyFirst: 0, abort), w => 4 * w),
        new("mutual-burst-8x-idle", (pool, w, abort) => MutualBurst(pool, 8 * w, busyFirst: 0, abort), w => 8 * w),
        new("mutual-burst-2x-busy", (pool, w, abort) => MutualBurst(pool, 2 * w, busyFirst: w, abort), w => 2 * w),
        new("mutual-burst-4x-busy", (pool, w, abort) => MutualBurst(pool, 4 * w, busyFirst: w, abort), w => 4 * w),
        new("mutual-burst-8x-busy", (pool, w, abort) => MutualBurst(pool, 8 * w, busyFirst: w, abort), w => 8 * w),
        new("mutual-staggered-4x", (pool, w, abort) => MutualStaggered(pool, 4 * w, abort), w => 4 * w),
        new("sync-over-async-4x", (pool, w, abort) => SyncOverAsync(pool, 4 * w, abort), w => (4 * w) + 1), // every parent blocked before a child runs, then one child
        new("nested-children-depth-4", (pool, _, abort) => NestedChildren(pool, depth: 4, abort), _ => 16), // 15 inner nodes blocked, then a leaf
        new("semaphore-convoy-4x", (pool, w, abort) => SemaphoreConvoy(pool, 4 * w, abort), w => (4 * w) + 2), // the holder, every waiter, the holder's release
        new("blocking-continuations-4x", (pool, w, abort) => BlockingContinuations(pool, 4 * w, abort), w => 4 * w),
        new("late-completer-8x", (pool, w, abort) => LateCompleter(pool, 8 * w, abort), w => 8 * w), // 8w - 1 waiters and their completer
        new("every-worker-blocked-then-one-more", (pool, w, abort) => EveryWorkerBlockedThenOneMore(pool, w, abort), w => w + 1),
        new("work-queue-depletion", (pool, w, _) => WorkQueueDepletion(pool, 64 * w), w => w), // nothing blocks
    ];

    /// <summary>Every pattern, by name; the worker count scales the burst sizes.</summary>
    public static IReadOnlyList<string> Names { get; } = [.. s_patterns.Select(p => p.Name)];

    /// <summary>
    /// The most threads pattern <paramref name="name"/> can need at once to complete on a pool of
    /// <paramref name="workers"/> workers: its items that may all be blocked together, plus the one that releases them.
    /// </summary>
    public static int ThreadsNeeded(string name, int workers) => Find(name).ThreadsNeeded(workers);

    /// <summary>
    /// How long SlimPool may take to recover from pattern <paramref name="name"/> with the default options. Its
    /// starvation guard starts at most one spare a period (<paramref name="starvationTimeout"/>, or a CPU quota's
    /// enforcement period where the process runs under one that can throttle), so a pattern that needs <c>s</c> threads
    /// beyond the workers takes at least <c>s</c> periods. Allowed: 1.5 periods a spare (the guard's looks, its reading of
    /// the workers' CPU clocks and each spare's start stretch every period a little: about 54 ms a spare at 50 ms, with 64
    /// workers on 2 cores), 5 more periods, and 1 s for a loaded machine. The spares scale with the machine's cores,
    /// since the patterns scale with the worker count: one rule for 2 cores and for 64.
    /// </summary>
    public static TimeSpan Deadline(string name, int workers, TimeSpan starvationTimeout)
    {
        int spares = Math.Max(0, ThreadsNeeded(name, workers) - workers);
        int periodMs = StarvationGuard.PeriodMs(
            SlimThreadPoolOptions.ToWholeMilliseconds(starvationTimeout),
            new EffectiveCores().QuotaPeriod(Environment.TickCount64));
        return TimeSpan.FromMilliseconds(((1.5 * spares) + 5) * periodMs) + TimeSpan.FromSeconds(1);
    }

    /// <summary>
    /// Runs pattern <paramref name="name"/> on <paramref name="pool"/> with <paramref name="workers"/> as the
    /// pool's base worker count. Returns how long it took; throws <see cref="TimeoutException"/> (after
    /// releasing every blocked item) if it did not complete within <paramref name="deadline"/>.
    /// </summary>
    public static TimeSpan Run(string name, IThreadPool pool, int workers, TimeSpan deadline)
    {
        using var abort = new CancellationTokenSource();
        var clock = Stopwatch.StartNew();
        Task done = Start(name, pool, workers, abort.Token);
        bool completed;
        try
        {
            completed = done.Wait(deadline);
        }
        catch (AggregateException)
        {
            completed = true; // completed, but faulted: rethrown below
        }

        TimeSpan elapsed = clock.Elapsed;
        if (!completed)
        {
            abort.Cancel(); // release every blocked item before reporting
            throw new TimeoutException($"Blocking pattern '{name}' did not complete within {deadline.TotalMilliseconds:0} ms.");
        }

        done.GetAwaiter().GetResult();
        return elapsed;
    }

    private static Task Start(string name, IThreadPool pool, int workers, CancellationToken abort) => Find(name).Start(pool, workers, abort);

    private static Pattern Find(string name) =>
        Array.Find(s_patterns, p => p.Name == name) ?? throw new ArgumentOutOfRangeException(nameof(name), name, "Unknown blocking pattern.");

    // n items, each waits until all n have started: completes only when n threads run them at once. With busyFirst
    // > 0, that many items spin for 20 ms first, so the burst lands on a pool whose workers are all busy.
    private static Task MutualBurst(IThreadPool pool, int n, int busyFirst, CancellationToken abort)
    {
        for (int i = 0; i < busyFirst; i++)
        {
            pool.Queue(static () => SpinFor(TimeSpan.FromMilliseconds(20)));
        }

        var meeting = new Rendezvous(n, abort);
        for (int i = 0; i < n; i++)
        {
            pool.Queue(meeting.Arrive);
        }

        return meeting.Completion;
    }

    // The same mutual wait, but the items arrive 2 ms apart: each arrival may find an idle, searching or blocked pool.
    private static Task MutualStaggered(IThreadPool pool, int n, CancellationToken abort)
    {
        var meeting = new Rendezvous(n, abort);
        return Task.Factory.StartNew(() =>
        {
            for (int i = 0; i < n; i++)
            {
                pool.Queue(meeting.Arrive);
                Thread.Sleep(2);
            }

            return meeting.Completion;
        }, CancellationToken.None, TaskCreationOptions.LongRunning, TaskScheduler.Default).Unwrap();
    }

    // n items, each queues a child on the same pool and blocks on the child's task (Task.Wait: sync over async).
    private static Task SyncOverAsync(IThreadPool pool, int n, CancellationToken abort)
    {
        var done = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        int finished = 0;
        for (int i = 0; i < n; i++)
        {
            pool.Queue(() =>
            {
                var child = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
                pool.Queue(() => child.SetResult());
                child.Task.Wait(abort);
                if (Interlocked.Increment(ref finished) == n)
                {
                    done.SetResult();
                }
            });
        }

        return done.Task;
    }

    // A binary tree: every inner node queues two children and blocks until both are done; leaves return at once.
    private static Task NestedChildren(IThreadPool pool, int depth, CancellationToken abort)
    {
        var done = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        pool.Queue(() =>
        {
            Node(pool, depth, abort);
            done.SetResult();
        });
        return done.Task;

        static void Node(IThreadPool pool, int depth, CancellationToken abort)
        {
            if (depth == 0)
            {
                return;
            }

            using var children = new CountdownEvent(2);
            for (int i = 0; i < 2; i++)
            {
                pool.Queue(() =>
                {
                    Node(pool, depth - 1, abort);
                    children.Signal();
                });
            }

            children.Wait(abort);
        }
    }

    // A holder takes a semaphore and needs one more pool item to let go of it; n items queue up on the semaphore
    // (blocking their workers) before that item is queued.
    private static Task SemaphoreConvoy(IThreadPool pool, int n, CancellationToken abort)
    {
        var semaphore = new SemaphoreSlim(1, 1);
        var waitersQueued = new ManualResetEventSlim(false);
        var done = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        int finished = 0;
        semaphore.Wait(abort);
        pool.Queue(() =>
        {
            var release = new ManualResetEventSlim(false);
            waitersQueued.Wait(abort);
            pool.Queue(release.Set);
            release.Wait(abort);
            semaphore.Release();
        });
        for (int i = 0; i < n; i++)
        {
            pool.Queue(() =>
            {
                semaphore.Wait(abort);
                semaphore.Release();
                if (Interlocked.Increment(ref finished) == n)
                {
                    done.SetResult();
                }
            });
        }

        waitersQueued.Set();
        return done.Task;
    }

    // n async flows whose continuations (after an await, so through the pool's SynchronizationContext where it has
    // one) wait for each other.
    private static Task BlockingContinuations(IThreadPool pool, int n, CancellationToken abort)
    {
        var meeting = new Rendezvous(n, abort);
        for (int i = 0; i < n; i++)
        {
            pool.Queue(() => _ = Flow());
        }

        return meeting.Completion;

        async Task Flow()
        {
            await Task.Yield();
            meeting.Arrive();
        }
    }

    // n - 1 items block on one task (Task.Wait); the last item queued completes it.
    private static Task LateCompleter(IThreadPool pool, int n, CancellationToken abort)
    {
        var gate = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        var done = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        int finished = 0;
        for (int i = 0; i < n - 1; i++)
        {
            pool.Queue(() =>
            {
                gate.Task.Wait(abort);
                if (Interlocked.Increment(ref finished) == n - 1)
                {
                    done.SetResult();
                }
            });
        }

        pool.Queue(() => gate.SetResult());
        return done.Task;
    }

    // Every worker blocks (waiting for the test), then one more item must still start: starvation detection.
    private static Task EveryWorkerBlockedThenOneMore(IThreadPool pool, int workers, CancellationToken abort)
    {
        var started = new CountdownEvent(workers);
        var release = new ManualResetEventSlim(false);
        var done = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        for (int i = 0; i < workers; i++)
        {
            pool.Queue(() =>
            {
                started.Signal();
                release.Wait(abort);
            });
        }

        return Task.Factory.StartNew(() =>
        {
            started.Wait(abort);
            pool.Queue(() => done.SetResult());
            done.Task.ContinueWith(_ => release.Set(), TaskScheduler.Default);
            return done.Task;
        }, CancellationToken.None, TaskCreationOptions.LongRunning, TaskScheduler.Default).Unwrap();
    }

    // The runtime's depletion test: items queue one or two more from inside the pool until `total` have run.
    private static Task WorkQueueDepletion(IThreadPool pool, int total)
    {
        var done = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        int scheduled = 1;
        int completed = 0;
        Action item = null!;
        item = () =>
        {
            for (int i = 0; i < 2; i++)
            {
                if (Interlocked.Increment(ref scheduled) <= total)
                {
                    pool.Queue(item);
                }
            }

            if (Interlocked.Increment(ref completed) == total)
            {
                done.SetResult();
            }
        };
        pool.Queue(item);
        return done.Task;
    }

    // n participants, each of which waits until all n have arrived; completes once all n have got past the wait.
    private sealed class Rendezvous(int n, CancellationToken abort)
    {
        private readonly CountdownEvent _all = new(n);
        private readonly TaskCompletionSource _done = new(TaskCreationOptions.RunContinuationsAsynchronously);
        private int _passed;

        public Task Completion => _done.Task;

        public void Arrive()
        {
            _all.Signal();
            _all.Wait(abort);
            if (Interlocked.Increment(ref _passed) == n)
            {
                _done.SetResult();
            }
        }
    }

    private static void SpinFor(TimeSpan duration)
    {
        var clock = Stopwatch.StartNew();
        while (clock.Elapsed < duration)
        {
            Thread.SpinWait(100);
        }
    }

    private sealed record Pattern(string Name, Func<IThreadPool, int, CancellationToken, Task> Start, Func<int, int> ThreadsNeeded);
}
