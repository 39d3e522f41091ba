namespace SlimPool.Tests.Composition;

/// <summary>What happened to each item: run once or handed back once, refused and cancelled ones never run, exceptions reported once.</summary>
internal static class LedgerChecks
{
    public static IEnumerable<Violation> ExactlyOnce(ProgramRun run)
    {
        var findings = new Findings(Promise.ExactlyOnce);
        var asyncLeft = new List<string>();
        foreach (ItemRecord item in run.Accepted)
        {
            for (int i = 0; i < item.Steps.Length; i++)
            {
                StepRecord step = item.Steps[i];
                if (step.Runs > 1)
                {
                    findings.Add($"{item.StepName(i)} ran {step.Runs} times (first on {ProgramRun.Where(step)}, again on '{step.SecondThreadName}')");
                }

                if (i > 0 && step.Runs > 0 && item.Steps[i - 1].Runs == 0)
                {
                    findings.Add($"{item.StepName(i)} ran though step {i - 1} never did");
                }
            }

            if (item.HandBacks > 1)
            {
                findings.Add($"{item.Label} was handed back {item.HandBacks} times");
            }

            if (item.SentBy is not null && item.Steps[0].Runs > 0 && item.Steps[0].EndSeq > item.CallEndSeq)
            {
                findings.Add($"{item.SentBy.Label}'s Send returned (seq {item.CallEndSeq}) before its callback {item.Label} ended (seq {item.Steps[0].EndSeq})");
            }

            if (item.Spec.Kind == ItemKind.Cancelled)
            {
                continue; // skipped by the pool, or handed back; CancelledNeverRuns checks it never ran
            }

            if (item.IsAsync)
            {
                if (item.HandBacks > 0 && item.Started)
                {
                    findings.Add($"{item.Label} was handed back after its first step had run on {ProgramRun.Where(item.Steps[0])}");
                }
                else if (item.SwitchRefusedSeq is { } refusedAt)
                {
                    // Only an abandon refuses the rest of a flow: a drain takes it as the work it continues.
                    if (!run.Ledger.Shutdowns.Any(r => (r.IsPool || r.Spec.Target == item.Group) && AbandonedAt(r) < refusedAt))
                    {
                        findings.Add($"{item.Label}'s SwitchTo(alwaysYield: true) threw ObjectDisposedException (seq {refusedAt}) though no abandon of its target or of the pool had begun");
                    }
                }
                else if (!item.IsComplete && item.HandBacks == 0 && item.StoppedBecause is null)
                {
                    int ran = item.Steps.Count(s => s.Runs > 0);
                    asyncLeft.Add($"{item.Label} ({ran} of {item.Steps.Length} steps ran)");
                }
            }
            else if (item.Steps[0].PoolRuns > 0 && item.HandBacks > 0)
            {
                findings.Add($"{item.Label} ran on {ProgramRun.Where(item.Steps[0])} and was handed back too");
            }
            else if (item.Steps[0].Runs == 0 && item.HandBacks == 0 && item.Spec.Kind != ItemKind.CancelledWhileQueued)
            {
                findings.Add($"{item.Label} was accepted (queue call returned at seq {item.CallEndSeq}) but never ran and never came back: lost");
            }
        }

        // An async item that stopped part-way comes back as a task or continuation the test cannot name: as many must
        // come back as stopped.
        if (asyncLeft.Count != run.Unidentified.Count)
        {
            findings.Add(
                $"{asyncLeft.Count} accepted async items neither finished nor came back by name [{string.Join(", ", asyncLeft)}], " +
                $"but {run.Unidentified.Count} unnamed items (tasks, continuations) came back [{string.Join(", ", run.Unidentified)}]" +
                (asyncLeft.Count > run.Unidentified.Count ? ": async work lost" : ": more came back than was left"));
        }

        return findings.ToViolations();
    }

    public static IEnumerable<Violation> RefusedNeverRuns(ProgramRun run)
    {
        var findings = new Findings(Promise.RefusedNeverRuns);
        foreach (ItemRecord item in run.Ledger.Items.Where(i => i.State == AcceptState.Refused))
        {
            if (item.Started)
            {
                findings.Add($"{item.Label} was refused (queue call returned at seq {item.CallEndSeq}) but ran on {ProgramRun.Where(item.Steps[0])}");
            }

            if (item.HandBacks > 0)
            {
                findings.Add($"{item.Label} was refused but a shutdown handed it back");
            }
        }

        return findings.ToViolations();
    }

    public static IEnumerable<Violation> CancelledNeverRuns(ProgramRun run)
    {
        var findings = new Findings(Promise.CancelledNeverRuns);
        foreach (ItemRecord item in run.Ledger.Items.Where(i => i.Spec.Kind == ItemKind.Cancelled && i.Started))
        {
            findings.Add($"{item.Label}, queued with a cancelled token, ran on {ProgramRun.Where(item.Steps[0])}");
        }

        return findings.ToViolations();
    }

    public static IEnumerable<Violation> ExceptionsReportedOnce(ProgramRun run)
    {
        var findings = new Findings(Promise.ExceptionsOnce);
        var reported = run.Ledger.ReportedExceptions.GroupBy(label => label).ToDictionary(g => g.Key, g => g.Count());
        foreach (ItemRecord item in run.Ledger.Items.Where(i => i.Spec.Kind == ItemKind.Throw && i.Steps[0].PoolRuns > 0))
        {
            int times = reported.GetValueOrDefault(item.Label);
            if (times != item.Steps[0].PoolRuns)
            {
                findings.Add($"{item.Label} threw {item.Steps[0].PoolRuns} time(s) on the pool; its exception was reported {times} time(s)");
            }

            reported.Remove(item.Label);
        }

        foreach ((string label, int times) in reported)
        {
            findings.Add($"the pool reported {label}'s exception {times} time(s) though the pool never ran it");
        }

        return findings.ToViolations();
    }

    // When a shutdown's abandon began, if it abandoned at all: an Abandon at its call; a cancelled drain at its
    // cancellation, and only if its result says it abandoned (a cancellation after the drain returned abandons nothing,
    // and one not yet made has not begun).
    private static long? AbandonedAt(ShutdownRecord record) => record.Spec.Kind switch
    {
        ShutdownKind.Abandon => record.CallStartSeq,
        ShutdownKind.CancelledDrain when record.CancelSeq is { } cancelled && record.Result is { Mode: ShutdownMode.Abandon } => cancelled,
        _ => null,
    };

    public static IEnumerable<Violation> AsyncHasAHome(ProgramRun run)
    {
        var findings = new Findings(Promise.AsyncHasAHome);
        foreach (ItemRecord item in run.Ledger.Items.Where(i => i.StoppedBecause is not null))
        {
            findings.Add(item.StoppedBecause!);
        }

        return findings.ToViolations();
    }

    public static IEnumerable<Violation> Surprises(ProgramRun run) =>
        run.Hangs.Select(h => new Violation(Promise.NoHang, h))
            .Concat(run.Ledger.Surprises.Take(6).Select(s => new Violation(Promise.ApiBehaves, s)));
}
