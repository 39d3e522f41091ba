using SlimPool.Workers;
using System.Diagnostics;

namespace SlimPool.Tests.Composition;

/// <summary>
/// One item of a program as the ledger sees it, and the item itself: it is the state (or the <see cref="IWorkItem"/>)
/// queued, so a handed-back <see cref="AbandonedWorkItem"/> names it, and its body records each step it runs.
/// A chain's steps are items of their own (<see cref="Parent"/> is the step that queued this one).
/// </summary>
internal sealed class ItemRecord : IWorkItem
{
    /// <summary>The callback of every plain item: the state is the record.</summary>
    public static readonly Action<object?> RunState = static state => ((ItemRecord)state!).RunSync();

    /// <summary>The callback of a chain's later steps, queued with <c>Queue&lt;TState&gt;(..., preferLocal: true)</c>.</summary>
    public static readonly Action<ItemRecord> RunChainStep = static record => record.RunSync();

    /// <summary>The callback a Send item sends (<see cref="ItemKind.Send"/>): the state is the sent callback's record.</summary>
    public static readonly SendOrPostCallback RunSent = static state => ((ItemRecord)state!).RunSync();

    [ThreadStatic]
    private static bool t_byTest;

    private readonly ProgramRun _run;
    private int _handBacks;

    public ItemRecord(ProgramRun run, ItemSpec spec, string label, string producer, int order, ItemRecord? parent, string? expectedLocal)
    {
        _run = run;
        Spec = spec;
        Label = label;
        Producer = producer;
        Order = order;
        Parent = parent;
        ChainIndex = parent is null ? 0 : parent.ChainIndex + 1;
        ExpectedLocal = expectedLocal;
        Steps = new StepRecord[spec.StepCount];
        for (int i = 0; i < Steps.Length; i++)
        {
            Steps[i] = new StepRecord();
        }
    }

    public ItemSpec Spec { get; }

    public string Label { get; }

    /// <summary>The producer whose script queued it (a chain's later steps inherit the head's).</summary>
    public string Producer { get; }

    /// <summary>Its place among its producer's items queued from outside the pool; −1 for a chain's later steps.</summary>
    public int Order { get; }

    public ItemRecord? Parent { get; }

    /// <summary>For a Send item's callback: the item that sent it (<see cref="ItemKind.Send"/>); null for every other item.</summary>
    public ItemRecord? SentBy { get; init; }

    /// <summary>For a Send item's callback: the thread the Send was called on.</summary>
    public int SenderThreadId { get; init; }

    /// <summary>For a Send item's callback: whether it ran on the sending thread (inline), so not as an item of its target.</summary>
    public bool RanInline { get; private set; }

    /// <summary>Whether the pool counts this record's runs as items: all but a Send's callback run inline.</summary>
    public bool IsCountedItem => SentBy is null || !RanInline;

    public int ChainIndex { get; }

    /// <summary>The <see cref="ProgramRun.Local"/> value every step of it must see (see the AsyncLocal check).</summary>
    public string? ExpectedLocal { get; }

    public StepRecord[] Steps { get; }

    public int Group => Spec.Group;

    public bool IsAsync => Spec.Kind == ItemKind.Async;

    public AcceptState State { get; set; }

    public long CallStartSeq { get; set; }

    public long CallEndSeq { get; set; }

    /// <summary>The ledger's clock when the queue call returned.</summary>
    public TimeSpan AcceptedAt { get; set; }

    /// <summary>How many times a shutdown handed it back.</summary>
    public int HandBacks => Volatile.Read(ref _handBacks);

    /// <summary>
    /// The ledger's sequence number at which a <c>SwitchTo(alwaysYield: true)</c> of an async item threw
    /// <see cref="ObjectDisposedException"/> (its target no longer took the rest of the flow); null if none did.
    /// </summary>
    public long? SwitchRefusedSeq { get; private set; }

    /// <summary>Whether the item is accounted for without having finished: its flow ended at a refused switch.</summary>
    public bool EndedAtRefusedSwitch => SwitchRefusedSeq is not null;

    /// <summary>Set when an async item could not go on (see <see cref="RunAsync"/>): why.</summary>
    public string? StoppedBecause { get; private set; }

    /// <summary>Whether every step ran (at least once).</summary>
    public bool IsComplete => Steps[^1].Runs > 0;

    /// <summary>Whether any step ran.</summary>
    public bool Started => Steps[0].Runs > 0;

    public string StepName(int step) => Steps.Length == 1 ? Label : $"{Label} step {step}";

    /// <summary>Runs a handed-back item on this thread, as the test's own run (exceptions are the item's own).</summary>
    public static void RunHandedBack(AbandonedWorkItem item)
    {
        t_byTest = true;
        try
        {
            item.Run();
        }
        catch (ComposeItemException)
        {
            // A Throw item: its exception is the caller's now, as AbandonedWorkItem.Run says.
        }
        finally
        {
            t_byTest = false;
        }
    }

    public void OnHandedBack() => Interlocked.Increment(ref _handBacks);

    void IWorkItem.Execute() => RunSync();

    public void RunSync()
    {
        StepRecord step = Enter(0);
        try
        {
            switch (Spec.Kind)
            {
                case ItemKind.Block or ItemKind.LongRunning:
                    Thread.Sleep(Spec.Amount);
                    break;
                case ItemKind.BlockHinted:
                    _run.Pool.RunBlocking(() => Thread.Sleep(Spec.Amount));
                    break;
                case ItemKind.Throw:
                    throw new ComposeItemException(Label);
                case ItemKind.Send:
                    Spin(2);
                    _run.SendFrom(this);
                    break;
                case ItemKind.Chain:
                    Spin(2);
                    if (ChainIndex + 1 < Spec.Amount)
                    {
                        _run.QueueChainStep(this);
                    }

                    break;
                default:
                    Spin(Spec.Amount);
                    break;
            }
        }
        finally
        {
            Exit(0, step);
        }

        if (Spec.Kind == ItemKind.Interrupt && _run.IsWorker(Thread.CurrentThread.Name))
        {
            Thread.CurrentThread.Interrupt(); // after its record is complete: left pending as the item returns
        }
    }

    /// <summary>
    /// The async item: a step, then an await, <see cref="ItemSpec.Amount"/> times, then a last step. The awaits alternate
    /// <c>Task.Yield()</c> and <c>SwitchTo(alwaysYield: true)</c> on the item's own target (the pool or its group). On a
    /// pool worker a yield posts to the pool's (or the group's) SynchronizationContext. Off the workers (an item the
    /// shutdown ran on its own thread) there may be none, and the yield goes to the pool's TaskScheduler, which runs a
    /// continuation it no longer accepts on the built-in pool (it must never throw there: from an await, that would end
    /// the process). A switch refused once its target stopped taking the flow throws
    /// <see cref="ObjectDisposedException"/> at the await: the flow ends there (<see cref="SwitchRefusedSeq"/>), and the
    /// ledger checks that an abandon of the target or of the pool had begun. A pool without its SynchronizationContext
    /// only yields: after a switch the rest would run outside the pool's TaskScheduler, and its later awaits go to the
    /// built-in pool, as documented (<see cref="SlimThreadPool.SwitchTo"/>).
    /// </summary>
    public async Task RunAsync()
    {
        for (int i = 0; ; i++)
        {
            StepRecord step = Enter(i);
            Spin(3);
            Exit(i, step);
            if (i == Spec.Amount)
            {
                return;
            }

            step.AwaitSeq = _run.Ledger.Next();
            if (i % 2 == 0 || (Group < 0 && _run.Program.Pool.NoSynchronizationContext))
            {
                await Task.Yield();
                continue;
            }

            try
            {
                await (Group < 0 ? _run.Pool.SwitchTo(alwaysYield: true) : _run.Groups[Group].SwitchTo(alwaysYield: true));
            }
            catch (ObjectDisposedException)
            {
                SwitchRefusedSeq = _run.Ledger.Next();
                _run.Ledger.Touch();
                return;
            }
        }
    }

    private static void Spin(int microseconds)
    {
        long until = Stopwatch.GetTimestamp() + (microseconds * Stopwatch.Frequency / 1_000_000);
        while (Stopwatch.GetTimestamp() < until)
        {
            Thread.SpinWait(8);
        }
    }

    private StepRecord Enter(int index)
    {
        // An Interrupt item before this one on the thread left it interrupted for the pool's protocol between the two; the
        // step's own record-keeping (concurrent collections, whose growth takes a lock) starts without it, so the ledger
        // checks only what the pool did with it, as a user's item that waits would have taken it.
        ThreadInterrupts.DropPending();
        StepRecord step = Steps[index];
        bool byTest = t_byTest;
        _ = step.Start(_run.Ledger.Next(), _run.Ledger.Elapsed, byTest, ProgramRun.Local.Value, ProgramRun.HookLocal.Value);
        RanInline = SentBy is not null && Environment.CurrentManagedThreadId == SenderThreadId;

        if (Group >= 0 && !byTest)
        {
            if (RanInline)
            {
                // Inline, the callback takes the place of the group's item this thread runs or left suspended: not one more.
                _run.GroupTrackers[Group].CheckHeldHere(StepName(index));
            }
            else
            {
                _run.GroupTrackers[Group].Enter(StepName(index));
            }
        }

        _run.Ledger.Touch();
        return step;
    }

    private void Exit(int index, StepRecord step)
    {
        if (Group >= 0 && !t_byTest && !RanInline)
        {
            _run.GroupTrackers[Group].Exit(StepName(index));
        }

        step.EndSeq = _run.Ledger.Next();
        _run.Ledger.Touch();
    }
}
