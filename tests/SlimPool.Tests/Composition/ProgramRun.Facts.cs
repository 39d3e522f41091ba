namespace SlimPool.Tests.Composition;

/// <summary>Facts the checks derive from a finished run.</summary>
internal sealed partial class ProgramRun
{
    public IEnumerable<ItemRecord> Accepted => Ledger.Items.Where(item => item.State == AcceptState.Accepted);

    /// <summary>When the first shutdown call of the pool began (the test's final drain at the latest).</summary>
    public long PoolShutdownBegan => Ledger.Shutdowns.Where(r => r.IsPool && r.CallStartSeq > 0).Select(r => r.CallStartSeq).DefaultIfEmpty(long.MaxValue).Min();

    /// <summary>
    /// Whether the item's queue call had not returned when the pool's shutdown began: it raced the shutdown flag, so the
    /// shutdown may run it on the thread that finishes the drain, or its producer may run it itself after the last look.
    /// </summary>
    public bool Raced(ItemRecord item) => item.CallEndSeq > PoolShutdownBegan;

    /// <summary>When the first shutdown of the pool, or of <paramref name="group"/>, began; MaxValue if none did.</summary>
    public long ShutdownBegan(int group) => Ledger.Shutdowns
        .Where(r => (r.IsPool || r.Spec.Target == group) && r.CallStartSeq > 0)
        .Select(r => r.CallStartSeq)
        .DefaultIfEmpty(long.MaxValue)
        .Min();

    /// <summary>When an abandon of the pool, or of <paramref name="group"/>, began (a cancelled drain's cancellation); MaxValue if none did.</summary>
    public long AbandonBegan(int group) => Ledger.Shutdowns
        .Where(r => r.IsPool || r.Spec.Target == group)
        .Select(r => r.AbandonSeq ?? long.MaxValue)
        .DefaultIfEmpty(long.MaxValue)
        .Min();

    /// <summary>
    /// Whether step <paramref name="index"/> of an async item is a continuation the pool may have refused because an abandon
    /// had begun (it then runs on the built-in pool): its await came after the abandon began, or the abandon began while
    /// the await was posting it (before the step started) and it ran on the built-in pool. The test cannot see the
    /// instant of the post inside the await, so a post racing the abandon's start counts as refused.
    /// </summary>
    public bool MayBeRefusedContinuation(ItemRecord item, int index, StepRecord step)
    {
        if (index == 0)
        {
            // A Continuation item's one step is queued inside its queue call, by the antecedent's completion: once a
            // shutdown of its pool or group had begun, the scheduler may refuse it, and it runs on the built-in pool.
            // So may a long-running task made as its pool's shutdown began.
            return item.Spec.Kind is ItemKind.Continuation or ItemKind.LongRunning && step.OnThreadPool && ShutdownBegan(item.Group) < item.CallEndSeq;
        }

        long abandon = AbandonBegan(item.Group);
        return item.Steps[index - 1].AwaitSeq > abandon || (step.OnThreadPool && step.StartSeq > abandon);
    }

    /// <summary>Whether a step ran on a thread of the program itself (a producer, the controller, the test's thread).</summary>
    public bool OnProgramThread(StepRecord step) =>
        step.ThreadId == TestThreadId || (step.ThreadName?.StartsWith("compose ", StringComparison.Ordinal) ?? false);

    /// <summary>Every step that ran, first runs only, with its item.</summary>
    public IEnumerable<(ItemRecord Item, int Index, StepRecord Step)> StepsRun => Ledger.Items
        .SelectMany(item => item.Steps.Select((step, index) => (item, index, step)))
        .Where(s => s.step.Runs > 0);

    public static string Where(StepRecord step) =>
        $"'{step.ThreadName ?? $"unnamed thread {step.ThreadId}"}'{(step.OnThreadPool ? " (a built-in thread-pool thread)" : string.Empty)}";
}
