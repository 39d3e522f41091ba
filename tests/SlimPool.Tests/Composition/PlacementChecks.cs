namespace SlimPool.Tests.Composition;

/// <summary>Where and how items run: on the pool's workers, within their group's limit and order, in their own context.</summary>
internal static class PlacementChecks
{
    /// <summary>
    /// Every step the pool runs (an async item's continuations included) runs on one of the pool's workers, never on a
    /// built-in thread-pool thread. Allowed elsewhere: an item that raced the pool's shutdown (the shutdown or its
    /// producer runs it), a continuation posted after an abandon of its pool or group began (nothing takes it then), and
    /// a long-running task on the thread the pool gave it (or on the built-in pool, refused as its pool's shutdown began).
    /// </summary>
    public static IEnumerable<Violation> RunsOnPoolWorkers(ProgramRun run)
    {
        var findings = new Findings(Promise.OnPoolWorkers);
        foreach ((ItemRecord item, int index, StepRecord step) in run.StepsRun)
        {
            if (step.ByTest || run.IsWorker(step.ThreadName) || run.Raced(item))
            {
                continue;
            }

            if (item.Spec.Kind == ItemKind.LongRunning && run.IsLongRunningThread(step.ThreadName))
            {
                continue; // a thread of its own, named after the pool
            }

            if (run.MayBeRefusedContinuation(item, index, step))
            {
                continue;
            }

            string what = index > 0 ? "a continuation of async item " + item.Label : item.Label;
            findings.Add($"{item.StepName(index)} ({what}{(item.Group >= 0 ? $", of g{item.Group}" : string.Empty)}) ran on {ProgramRun.Where(step)}, not on one of the pool's workers ('{run.PoolName} #n')");
        }

        return findings.ToViolations();
    }

    /// <summary>
    /// A program whose items never block (they compute, throw, chain, await Task.Yield or are skipped; a Send may wait) runs on at most one
    /// thread more than the pool's workers: the starvation guard adds at most one spare for CPU-bound work (guarantee 8).
    /// </summary>
    public static IEnumerable<Violation> ComputeBoundAddsAtMostOneThread(ProgramRun run)
    {
        var findings = new Findings(Promise.ComputeBoundThreads);
        if (run.Ledger.Items.Any(i => i.Spec.Kind is ItemKind.Block or ItemKind.BlockHinted or ItemKind.Send))
        {
            return findings.ToViolations();
        }

        int threads = run.StepsRun.Where(s => run.IsWorker(s.Step.ThreadName)).Select(s => s.Step.ThreadId).Distinct().Count();
        if (threads > run.Program.Pool.Workers + 1)
        {
            findings.Add($"items that never block ran on {threads} of the pool's threads; it has {run.Program.Pool.Workers} worker(s), and CPU-bound work may add one spare");
        }

        return findings.ToViolations();
    }

    /// <summary>At most MaxConcurrency of a group's steps run at once; a serial group's never overlap.</summary>
    public static IEnumerable<Violation> GroupLimits(ProgramRun run)
    {
        foreach (GroupTracker group in run.GroupTrackers.Where(g => g.Most > g.Limit))
        {
            string check = group.Limit == 1 ? Promise.SerialNoOverlap : Promise.GroupLimit;
            yield return new Violation(check, $"g{group.Index} (MaxConcurrency = {group.Limit}) ran {group.Most} of its steps at once");
            foreach (string overlap in group.Overlaps)
            {
                yield return new Violation(check, overlap);
            }
        }
    }

    /// <summary>A serial group starts each producer's items (their first steps) in the order the producer queued them.</summary>
    public static IEnumerable<Violation> SerialGroupKeepsProducerOrder(ProgramRun run)
    {
        var findings = new Findings(Promise.SerialOrder);
        foreach (var queue in run.Accepted
            .Where(i => i.Group >= 0 && run.Program.Groups[i.Group].MaxConcurrency == 1 && i.Order >= 0)
            .Where(i => i.Steps[0].PoolRuns > 0 && !i.Steps[0].ByTest)
            .GroupBy(i => (i.Group, i.Producer)))
        {
            TimingChecks.ReportInversions(queue.OrderBy(i => i.Order).ToList(), findings, $"in serial group g{queue.Key.Group}");
        }

        return findings.ToViolations();
    }

    /// <summary>
    /// Each step sees its own producer's AsyncLocal value or none: with FlowExecutionContext the producer's (a chain's
    /// later steps the head's), without it null; a task (pool.Run, a group's scheduler) carries its producer's context
    /// either way, as every task does; under SuppressFlow null; a continuation what its first step saw. An item that
    /// raced the pool's shutdown and ran off the workers (on its own producer, or the shutdown's thread) may also see
    /// its own producer's value, never another's. With thread hooks, the start hook's value too (see
    /// <see cref="UnexpectedHookLocal"/>).
    /// </summary>
    public static IEnumerable<Violation> ItemSeesItsOwnContext(ProgramRun run)
    {
        var findings = new Findings(Promise.OwnContext);
        foreach ((ItemRecord item, int index, StepRecord step) in run.StepsRun)
        {
            if (run.Program.Pool.ThreadHooks && UnexpectedHookLocal(run, step) is { } expected)
            {
                findings.Add($"{item.StepName(index)}{(item.Group >= 0 ? $" (g{item.Group})" : string.Empty)} saw HookLocal = {Show(step.HookLocal)} " +
                    $"with Local = {Show(step.Local)} on {ProgramRun.Where(step)}; expected {expected}");
            }

            if (step.Local == item.ExpectedLocal)
            {
                continue;
            }

            bool offWorkersAfterRace = run.Raced(item) && !run.IsWorker(step.ThreadName) && !step.ByTest;
            if (offWorkersAfterRace && (step.Local is null || step.Local == item.Producer))
            {
                continue;
            }

            string why = item.Spec.SuppressFlow ? "queued under ExecutionContext.SuppressFlow()"
                : item.Spec.IsTask ? "a task carries its producer's context"
                : run.Program.Pool.FlowExecutionContext ? "FlowExecutionContext = true" : "FlowExecutionContext = false";
            findings.Add($"{item.StepName(index)}{(item.Group >= 0 ? $" (g{item.Group})" : string.Empty)} saw Local = {Show(step.Local)} on {ProgramRun.Where(step)}; " +
                $"expected {Show(item.ExpectedLocal)} ({why})");
        }

        return findings.ToViolations();
    }

    /// <summary>
    /// What was wrong with the <see cref="ProgramRun.HookLocal"/> a step saw, in a program with thread hooks, or null. A
    /// step in a producer's context (it saw its <see cref="ProgramRun.Local"/>) sees none: no producer ran the hook. On
    /// one of the pool's workers, a step in no producer's context starts from the worker's, which the start hook set to
    /// the pool's name. Elsewhere such a step (raced by a shutdown, or run by the test) sees none, or the pool's name when
    /// it carries a context captured on a worker (a chain's next step queued from a step that saw it); never another value.
    /// </summary>
    private static string? UnexpectedHookLocal(ProgramRun run, StepRecord step)
    {
        if (step.Local is not null)
        {
            return step.HookLocal is null ? null : "null (a producer's context)";
        }

        if (!step.ByTest && run.IsWorker(step.ThreadName))
        {
            return step.HookLocal == run.PoolName ? null : $"{Show(run.PoolName)} (no producer's context: the worker's, as its OnThreadStart hook left it)";
        }

        return step.HookLocal is null || step.HookLocal == run.PoolName ? null : $"null or {Show(run.PoolName)} (off the workers)";
    }

    private static string Show(string? value) => value is null ? "null" : $"\"{value}\"";
}
