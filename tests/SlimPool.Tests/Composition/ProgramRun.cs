using SlimPool.Workers;
using System.Collections.Concurrent;

namespace SlimPool.Tests.Composition;

/// <summary>
/// Runs one <see cref="ComposeProgram"/> against a real pool: its producers and controller on threads of their own, all
/// started at once; then, once the pool is idle, the test's own drain, the running of every item handed back, and a wait until every accepted
/// item is accounted for. What happened stays in <see cref="Ledger"/> for the checks (<see cref="PromiseChecks"/>).
/// Every wait is bounded: a hung call or a lost item ends the run with what the ledger saw.
/// </summary>
internal sealed partial class ProgramRun
{
    /// <summary>Each producer sets it to its name; items record what they see.</summary>
    public static readonly AsyncLocal<string?> Local = new();

    /// <summary>The pool's <c>OnThreadStart</c> hook sets it to the pool's name, in a program with thread hooks.</summary>
    public static readonly AsyncLocal<string?> HookLocal = new();

    /// <summary>How long a script, a shutdown call or the settling may take before the run counts it as hung (programs take milliseconds).</summary>
    public static readonly TimeSpan HangLimit = TimeSpan.FromSeconds(10);

    private static int s_poolNumber;

    private readonly ConcurrentQueue<string> _unidentified = new();
    private int _harnessRuns;
    private int _harnessRunsOffWorkers;
    private readonly int[] _groupHarnessRuns;

    private ProgramRun(ComposeProgram program)
    {
        Program = program;
        PoolName = $"compose-{Interlocked.Increment(ref s_poolNumber)}";
        Durations = program.Pool.FlightRecorder ? new DurationRecords(PoolName) : null; // before the pool publishes its meter
        ThreadHooks = new ThreadHookRecords(Ledger, PoolName);
        Pool = new SlimThreadPool(program.Pool.ToOptions(PoolName, OnUnhandledException, ThreadHooks));
        ThreadHooks.Attach(Pool);
        Groups = [.. program.Groups.Select(spec => Pool.CreateGroup(spec.ToOptions()))];
        GroupTrackers = [.. program.Groups.Select((spec, index) => new GroupTracker(index, spec.MaxConcurrency))];
        _groupHarnessRuns = new int[program.Groups.Length];
        TestThreadId = Environment.CurrentManagedThreadId;
    }

    public ComposeProgram Program { get; }

    public ComposeLedger Ledger { get; } = new();

    public string PoolName { get; }

    public SlimThreadPool Pool { get; }

    /// <summary>The pool's run-time histogram, listened to when the program turns the flight recorder on.</summary>
    public DurationRecords? Durations { get; }

    public SlimThreadPoolGroup[] Groups { get; }

    /// <summary>What the pool's thread hooks saw, in a program that sets them (<see cref="PoolSpec.ThreadHooks"/>).</summary>
    public ThreadHookRecords ThreadHooks { get; }

    public GroupTracker[] GroupTrackers { get; }

    /// <summary>The thread that runs the program, its final drain and the items handed back.</summary>
    public int TestThreadId { get; }

    /// <summary>Threads of the program and calls that did not return in time; when any, the run stopped there.</summary>
    public ConcurrentQueue<string> Hangs { get; } = new();

    /// <summary>Items handed back that are not a program item's record: an async item's task or continuation.</summary>
    public IReadOnlyCollection<string> Unidentified => _unidentified;

    /// <summary>Items of the harness's own that the pool ran (probe tasks, a shutdown called on a worker).</summary>
    public int HarnessRuns => Volatile.Read(ref _harnessRuns);

    /// <summary>How many of the harness's items each group ran (a shutdown called inside a group's item).</summary>
    public int GroupHarnessRuns(int group) => Volatile.Read(ref _groupHarnessRuns[group]);

    /// <summary>How many of those ran off the pool's workers.</summary>
    public int HarnessRunsOffWorkers => Volatile.Read(ref _harnessRunsOffWorkers);

    public PoolCounts? Counts { get; private set; }

    /// <summary>Whether every accepted item was accounted for before the settle limit.</summary>
    public bool Settled { get; private set; }

    public static ProgramRun Execute(ComposeProgram program)
    {
        var run = new ProgramRun(program);
        try
        {
            run.RunToEnd();
        }
        finally
        {
            run.Durations?.Dispose(); // its records stay for the checks
        }

        return run;
    }

    /// <summary>Whether <paramref name="threadName"/> is one of this pool's workers (permanent or spare).</summary>
    public bool IsWorker(string? threadName) => threadName is not null && threadName.StartsWith(PoolName + " #", StringComparison.Ordinal);

    /// <summary>Whether a step ran on the thread the pool's TaskScheduler gave a long-running task.</summary>
    public bool IsLongRunningThread(string? threadName) => threadName == PoolName + " long-running task";

    private void RunToEnd()
    {
        using var go = new ManualResetEventSlim(false);
        var threads = new List<Thread>();
        for (int p = 0; p < Program.Producers.Length; p++)
        {
            int producer = p;
            threads.Add(StartThread($"compose {ComposeProgram.ProducerName(p)}", () => RunScript(producer, go)));
        }

        if (Program.ControllerShutdown is { } shutdown)
        {
            threads.Add(StartThread("compose controller", () => RunController(shutdown, go)));
        }

        go.Set();
        TimeSpan deadline = Ledger.Elapsed + HangLimit;
        foreach (Thread thread in threads)
        {
            if (!thread.Join(Remaining(deadline)))
            {
                Hangs.Enqueue($"'{thread.Name}' did not finish its script within {HangLimit.TotalSeconds} s: a queue or shutdown call hung");
            }
        }

        if (!Hangs.IsEmpty)
        {
            return;
        }

        // Let the program finish first (chains queue their next steps until their last; a drain now would refuse them).
        if (!Pool.WaitForIdleAsync().Wait(HangLimit))
        {
            Hangs.Enqueue($"pool.WaitForIdleAsync() did not complete within {HangLimit.TotalSeconds} s of the scripts' end");
            return;
        }

        Shutdown(new ShutdownSpec(-1, ShutdownKind.Drain, 0, ShutdownFrom.Controller), isFinal: true);
        if (!Hangs.IsEmpty)
        {
            return;
        }

        AwaitShutdownsFromWorkers();
        if (!Hangs.IsEmpty)
        {
            return;
        }

        TakeBackAndRun();
        Settle();
        Counts = new PoolCounts(
            Pool.CompletedWorkItemCount,
            Pool.CancelledWorkItemCount,
            Pool.UnhandledExceptionCount,
            [.. Groups.Select(g => g.CompletedWorkItemCount)],
            [.. Groups.Select(g => g.CancelledWorkItemCount)],
            Pool.SlowWorkItemCount);
    }

    private static Thread StartThread(string name, Action body)
    {
        var thread = new Thread(() => body()) { IsBackground = true, Name = name };
        thread.Start();
        return thread;
    }

    private TimeSpan Remaining(TimeSpan deadline)
    {
        TimeSpan left = deadline - Ledger.Elapsed;
        return left > TimeSpan.Zero ? left : TimeSpan.Zero;
    }

    private void RunScript(int producer, ManualResetEventSlim go)
    {
        string name = ComposeProgram.ProducerName(producer);
        Local.Value = name;
        go.Wait();
        ScriptOp[] script = Program.Producers[producer];
        int order = 0;
        for (int op = 0; op < script.Length; op++)
        {
            try
            {
                if (script[op].Item is { IsBatch: true } first)
                {
                    int end = BatchEnd(script, op);
                    QueueBatchFromProducer(script[op..end], producer, op, name, order);
                    order += end - op;
                    op = end - 1;
                }
                else if (script[op].Item is { } item)
                {
                    QueueFromProducer(item, ComposeProgram.Label(producer, op), name, order++);
                }
                else if (script[op].Shutdown is { } shutdown)
                {
                    Shutdown(shutdown, isFinal: false);
                }
                else if (script[op].IdleTarget is { } target)
                {
                    WaitForIdle(target, ComposeProgram.Label(producer, op), name);
                }
                else
                {
                    Pause(script[op].PauseMs);
                }
            }
            catch (Exception exception)
            {
                Ledger.Surprises.Enqueue($"{ComposeProgram.Label(producer, op)}: {script[op].ToCSharp(ComposeProgram.Label(producer, op))} threw {exception.GetType().Name}: {exception.Message}");
            }
        }
    }

    // The completion's sequence number is taken by a continuation that runs as the task completes, on the thread that
    // completes it: every item that ended before then has a smaller end number (IdleChecks).
    private void WaitForIdle(int target, string label, string producer)
    {
        var record = new IdleWaitRecord(producer, label, target, Ledger.Next());
        Ledger.IdleWaits.Enqueue(record);
        Task idle = target < 0 ? Pool.WaitForIdleAsync() : Groups[target].WaitForIdleAsync();
        _ = idle.ContinueWith(
            static (_, state) =>
            {
                (ComposeLedger ledger, IdleWaitRecord waited) = ((ComposeLedger, IdleWaitRecord))state!;
                waited.OnCompleted(ledger.Next());
            },
            (Ledger, record),
            CancellationToken.None,
            TaskContinuationOptions.ExecuteSynchronously,
            TaskScheduler.Default);
        if (!idle.Wait(HangLimit))
        {
            Hangs.Enqueue($"{record.Describe()} did not complete within {HangLimit.TotalSeconds} s");
        }
    }

    private void RunController(ShutdownSpec shutdown, ManualResetEventSlim go)
    {
        Local.Value = "controller";
        go.Wait();
        Pause(Program.ControllerDelayMs);
        if (shutdown.From != ShutdownFrom.Controller)
        {
            ShutdownFromWorker(shutdown);
        }
        else
        {
            Shutdown(shutdown, isFinal: false);
        }
    }

    private static void Pause(int ms)
    {
        if (ms == 0)
        {
            Thread.Yield();
        }
        else
        {
            Thread.Sleep(ms);
        }
    }

    private void OnUnhandledException(Exception exception)
    {
        if (exception is ComposeItemException item)
        {
            Ledger.ReportedExceptions.Enqueue(item.Label);
        }
        else
        {
            Ledger.Surprises.Enqueue($"the pool reported an exception no item threw: {exception}");
        }
    }

    private void OnHarnessRun(int group = -1)
    {
        ThreadInterrupts.DropPending(); // one an Interrupt item left: the harness's own record-keeping starts without it (ItemRecord)
        Interlocked.Increment(ref _harnessRuns);
        if (group >= 0)
        {
            Interlocked.Increment(ref _groupHarnessRuns[group]);
        }

        if (!IsWorker(Thread.CurrentThread.Name))
        {
            Interlocked.Increment(ref _harnessRunsOffWorkers);
        }
    }
}
