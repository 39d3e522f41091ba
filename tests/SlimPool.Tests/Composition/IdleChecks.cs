namespace SlimPool.Tests.Composition;

/// <summary>What a producer's <c>WaitForIdleAsync</c> promises about the items it queued before the call.</summary>
internal static class IdleChecks
{
    /// <summary>
    /// A producer's wait completes only after the items it queued before the call have finished. The pool's wait: every
    /// such item, the groups' included (a group's queued items hold a turn that is queued or running, so the pool is not
    /// idle while they wait), unless a shutdown of the pool began before the completion (the wait then completes once
    /// the pool has shut down, as documented). A group's wait: the group's items, each run or come back. Items that came
    /// back from an abandon (or may have: one the pool never started, once an abandon of its group or the pool began),
    /// cancelled ones and continuations a shutdown may have sent to the built-in pool are not waited for; an item that ended before the completion has a smaller end number (<see cref="IdleWaitRecord"/>).
    /// </summary>
    public static IEnumerable<Violation> WaitForIdleCompletesAfterEarlierItems(ProgramRun run)
    {
        var findings = new Findings(Promise.IdleAfterEarlierItems);
        foreach (IdleWaitRecord wait in run.Ledger.IdleWaits)
        {
            long completed = wait.CompletedSeq;
            if (completed == 0 || (wait.IsPool && run.PoolShutdownBegan < completed))
            {
                continue; // one that never completed is a hang, reported as such
            }

            var earlier = run.Accepted.Where(item =>
                item.Producer == wait.Producer
                && item.Order >= 0
                && item.CallEndSeq < wait.CallSeq
                && (wait.IsPool || item.Group == wait.Target)
                && item.Spec.Kind != ItemKind.Cancelled
                && !(item.Spec.Kind == ItemKind.CancelledWhileQueued && item.Steps[0].Runs == 0) // skipped
                && item.HandBacks == 0
                && !(item.Steps[0].PoolRuns == 0 && run.AbandonBegan(item.Group) < completed) // may have come back (an async item's task is not its record)
                && !(item.Spec.Kind == ItemKind.Continuation && run.ShutdownBegan(item.Group) < completed));
            foreach (ItemRecord item in earlier)
            {
                StepRecord first = item.Steps[0];
                if (first.Runs == 0 || first.EndSeq == 0 || first.EndSeq > completed)
                {
                    string what = first.Runs == 0 ? "had not started" : "was still running";
                    findings.Add($"{wait.Describe()} completed (seq {completed}) while {item.StepName(0)}, queued before it (seq {item.CallEndSeq} < {wait.CallSeq}), {what}" +
                        (first.Runs > 0 ? $" (started at seq {first.StartSeq} on {ProgramRun.Where(first)}, ended at seq {first.EndSeq})" : string.Empty));
                }
            }
        }

        return findings.ToViolations();
    }
}
