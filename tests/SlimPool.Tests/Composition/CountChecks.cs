namespace SlimPool.Tests.Composition;

/// <summary>
/// The pool's and its groups' counters against the ledger, read after the final drain. The count the pool should
/// report, decided here: <c>CompletedWorkItemCount</c> counts each user item the pool finished once, wherever it ran
/// (a worker, or the thread that finished a shutdown): every plain item and chain step, every task of its schedulers
/// and every continuation posted to its SynchronizationContexts, its groups' items included, those that threw and
/// those skipped as cancelled too; never an item a shutdown handed back, and never the pool's own machinery (a
/// priority's ticket, a group's turn), nor a Send's callback run inline (it is part of the item that sent it). So 1,000
/// High items report 1,000. A group's count is the same for its items.
/// </summary>
internal static class CountChecks
{
    public static IEnumerable<Violation> CountsEqualTheLedger(ProgramRun run)
    {
        if (run.Counts is not { } counts)
        {
            yield break; // the run hung; NoCallHangs says so
        }

        var accepted = run.Accepted.ToList();

        // Skipped by the pool for its cancelled token: every Cancelled item, and every CancelledWhileQueued one that never
        // ran; one handed back is the caller's (guarantee 25). One neither run, skipped nor handed back would be lost, and
        // the cancelled counts then fall short of this.
        static bool Skipped(ItemRecord i) =>
            (i.Spec.Kind == ItemKind.Cancelled || (i.Spec.Kind == ItemKind.CancelledWhileQueued && i.Steps[0].Runs == 0)) && i.HandBacks == 0;
        long Cancelled(int? group) => accepted.Count(i => Skipped(i) && (group is null ? i.Group < 0 : i.Group == group));

        long expectedCancelled = Cancelled(null);
        if (counts.Cancelled != expectedCancelled)
        {
            yield return new Violation(Promise.Counts, $"pool.CancelledWorkItemCount = {counts.Cancelled}; the ledger counts {expectedCancelled} pool items skipped as cancelled");
        }

        long threw = run.Ledger.Items.Where(i => i.Spec.Kind == ItemKind.Throw).Sum(i => (long)i.Steps[0].PoolRuns);
        if (counts.Exceptions != threw)
        {
            yield return new Violation(Promise.Counts, $"pool.UnhandledExceptionCount = {counts.Exceptions}; the ledger counts {threw} items that threw on the pool");
        }

        // The slow-item watch reports items that ran on workers, each once (an item run inside another is an item of its
        // own): never more reports than steps the pool ran, and none with the watch off.
        long stepsRun = run.Ledger.Items.Sum(i => i.Steps.Sum(s => (long)s.PoolRuns)) + run.HarnessRuns;
        if (run.Program.Pool.FlightRecorder ? counts.Slow > stepsRun : counts.Slow != 0)
        {
            yield return new Violation(Promise.Counts, $"pool.SlowWorkItemCount = {counts.Slow}, with {stepsRun} steps run and the watch {(run.Program.Pool.FlightRecorder ? "on" : "off")}");
        }

        // The run-time histogram: each record is one of this pool's items, a group's with the name of one of its groups,
        // and took between nothing and the whole run.
        if (run.Durations is { } durations)
        {
            var groupNames = run.Groups.Select(g => g.Name).ToHashSet(StringComparer.Ordinal);
            foreach ((double seconds, string? pool, string? group) in durations.Records)
            {
                if (pool != run.PoolName || (group is not null && !groupNames.Contains(group)) || seconds < 0 || seconds > 60)
                {
                    yield return new Violation(Promise.Counts, $"slimpool.work_item.duration recorded {seconds} s for pool '{pool}', group '{group}'");
                    break;
                }
            }
        }

        // A step run on a built-in thread may be the shutdown finishing a drain there (counted by the pool) or a
        // continuation the pool refused (not the pool's): the completed counts cannot be told then.
        bool undecidable = run.HarnessRunsOffWorkers > 0 || run.StepsRun.Any(s =>
            !s.Step.ByTest && !run.IsWorker(s.Step.ThreadName) && !run.IsLongRunningThread(s.Step.ThreadName) && !run.OnProgramThread(s.Step));
        if (undecidable)
        {
            yield break;
        }

        // A Send that gave up on its callback as the pool's abandon began (it threw) may have had it taken just then by a
        // worker, which skips it and counts it, as it counts an item skipped for its cancelled token: each such Send may
        // add one to its target's count and the pool's.
        bool abandoned = run.AbandonBegan(-1) != long.MaxValue;
        long GivenUpSends(int? group) => !abandoned ? 0 : run.Ledger.Items.Count(i => i.SentBy is not null && i.State == AcceptState.Refused && (group is null || i.Group == group));
        long poolSteps = run.Ledger.Items.Where(i => i.IsCountedItem).Sum(i => i.Steps.Sum(s => (long)s.PoolRuns));
        long expected = poolSteps + expectedCancelled + accepted.Count(i => Skipped(i) && i.Group >= 0) + run.HarnessRuns;
        if (counts.Completed < expected || counts.Completed > expected + GivenUpSends(null))
        {
            int high = accepted.Count(i => i.Spec.Priority == WorkItemPriority.High && i.Group < 0);
            int low = accepted.Count(i => i.Spec.Priority == WorkItemPriority.Low && i.Group < 0);
            yield return new Violation(Promise.Counts,
                $"pool.CompletedWorkItemCount = {counts.Completed}; the ledger counts {expected} items the pool finished " +
                $"({poolSteps} steps run, {expected - poolSteps - run.HarnessRuns} skipped as cancelled, {run.HarnessRuns} of the harness; " +
                $"among them {high} High and {low} Low pool items and {accepted.Count(i => i.Group >= 0)} group items)");
        }

        for (int g = 0; g < run.Groups.Length; g++)
        {
            int group = g;
            long groupSteps = run.Ledger.Items.Where(i => i.Group == group && i.IsCountedItem).Sum(i => i.Steps.Sum(s => (long)s.PoolRuns)) + run.GroupHarnessRuns(group);
            long groupCancelled = Cancelled(group);
            if (counts.GroupCompleted[g] < groupSteps + groupCancelled || counts.GroupCompleted[g] > groupSteps + groupCancelled + GivenUpSends(group))
            {
                yield return new Violation(Promise.Counts, $"g{g}.CompletedWorkItemCount = {counts.GroupCompleted[g]}; the ledger counts {groupSteps + groupCancelled} ({groupSteps} steps run, {groupCancelled} skipped as cancelled)");
            }

            if (counts.GroupCancelled[g] != groupCancelled)
            {
                yield return new Violation(Promise.Counts, $"g{g}.CancelledWorkItemCount = {counts.GroupCancelled[g]}; the ledger counts {groupCancelled}");
            }
        }
    }
}
