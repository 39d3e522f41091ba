namespace SlimPool.Tests.Composition;

/// <summary>The pool's threads as its hooks saw them, in a program that sets them (<see cref="PoolSpec.ThreadHooks"/>).</summary>
internal static class ThreadChecks
{
    /// <summary>
    /// Each of the pool's threads runs <c>OnThreadStart</c> once, first, and <c>OnThreadExit</c> once, last, on
    /// itself and with the same index; both hooks run only on the pool's workers; every thread has exited when the test's
    /// final drain returns (its task completes once the workers have exited); and no thread starts after a shutdown of the
    /// pool returned.
    /// </summary>
    public static IEnumerable<Violation> HooksPairUp(ProgramRun run)
    {
        var findings = new Findings(Promise.HooksPairUp);
        if (!run.Program.Pool.ThreadHooks)
        {
            return findings.ToViolations();
        }

        foreach (string stray in run.ThreadHooks.Strays)
        {
            findings.Add(stray);
        }

        ShutdownRecord? final = run.Ledger.Shutdowns.FirstOrDefault(s => s.IsFinal);
        long finalReturn = final?.ReturnSeq ?? long.MaxValue;
        ShutdownRecord? firstDone = run.Ledger.Shutdowns
            .Where(s => s.IsPool && s.Spec.Kind != ShutdownKind.CancelledDrain && s.ReturnSeq is not null)
            .MinBy(s => s.ReturnSeq);
        foreach (ThreadHookRecord thread in run.ThreadHooks.Threads)
        {
            string name = $"'{thread.Name}' (thread {thread.ThreadId})";
            if (thread.Starts != 1 || thread.Exits != 1)
            {
                findings.Add($"{name} ran OnThreadStart {thread.Starts} time(s) and OnThreadExit {thread.Exits} time(s); each should run once");
            }
            else if (thread.ExitIndex != thread.StartIndex)
            {
                findings.Add($"{name} started as worker {thread.StartIndex} and exited as worker {thread.ExitIndex}");
            }

            if (thread.ExitSeq is long exit && exit > finalReturn)
            {
                findings.Add($"{name} ran OnThreadExit after the test's final drain returned (seq {exit} > {finalReturn}): the drain's task completed before the workers exited");
            }

            if (firstDone is not null && thread.StartSeq > firstDone.ReturnSeq)
            {
                findings.Add($"{name} started (seq {thread.StartSeq}) after {firstDone.Describe()} returned (seq {firstDone.ReturnSeq})");
            }
        }

        return findings.ToViolations();
    }

    /// <summary>
    /// The pool adds threads only to cover blocking or starvation: a blocking scope (<c>RunBlocking</c>, a
    /// <c>Send</c> that waits) starts at most one spare, the starvation guard at most one per <c>StarvationTimeout</c>
    /// (the default 50 ms, or the program's 5 ms). So the threads a program starts are at most its workers, one per item that blocks or sends,
    /// and one per timeout the program ran for (and one more). A thread hook's blocking scope adds none (guarantee 9): the spare
    /// whose exit hook opened it is leaving, or a shutdown let it go.
    /// </summary>
    public static IEnumerable<Violation> SparesComeOnlyForBlocking(ProgramRun run)
    {
        var findings = new Findings(Promise.SparesBounded);
        if (!run.Program.Pool.ThreadHooks)
        {
            return findings.ToViolations();
        }

        List<ThreadHookRecord> threads = [.. run.ThreadHooks.Threads];
        int blockers = run.Ledger.Items.Count(i => i.Spec.Kind is ItemKind.Block or ItemKind.BlockHinted or ItemKind.Send);
        TimeSpan lastStart = threads.Count == 0 ? TimeSpan.Zero : threads.Max(t => t.StartTime);
        TimeSpan guardTimeout = run.Program.Pool.ShortStarvation ? PoolSpec.ShortStarvationTimeout : new SlimThreadPoolOptions().StarvationTimeout;
        int guardTurns = 1 + (int)(lastStart.Ticks / guardTimeout.Ticks);
        int allowed = run.Program.Pool.Workers + blockers + guardTurns;
        if (threads.Count > allowed)
        {
            findings.Add($"the pool started {threads.Count} threads in {lastStart.TotalMilliseconds:F0} ms; {run.Program.Pool.Workers} worker(s), " +
                $"{blockers} item(s) that block or send and {guardTurns} turn(s) of the starvation guard allow {allowed}");
        }

        return findings.ToViolations();
    }
}
