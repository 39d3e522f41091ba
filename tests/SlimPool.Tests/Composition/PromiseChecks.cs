namespace SlimPool.Tests.Composition;

/// <summary>Every check of a finished run, each a named promise (<see cref="Promise"/>).</summary>
internal static class PromiseChecks
{
    public static IReadOnlyList<Violation> All(ProgramRun run)
    {
        var violations = LedgerChecks.Surprises(run).ToList();
        if (!run.Hangs.IsEmpty)
        {
            return violations; // the run stopped where it hung: the rest of the ledger is incomplete
        }

        violations.AddRange(LedgerChecks.ExactlyOnce(run));
        violations.AddRange(LedgerChecks.RefusedNeverRuns(run));
        violations.AddRange(LedgerChecks.CancelledNeverRuns(run));
        violations.AddRange(LedgerChecks.ExceptionsReportedOnce(run));
        violations.AddRange(LedgerChecks.AsyncHasAHome(run));
        violations.AddRange(TimingChecks.NothingStartsAfterShutdownReturned(run));
        violations.AddRange(TimingChecks.StartsWithinBound(run));
        violations.AddRange(TimingChecks.PoolKeepsProducerOrderOnOneWorker(run));
        violations.AddRange(PlacementChecks.RunsOnPoolWorkers(run));
        violations.AddRange(PlacementChecks.GroupLimits(run));
        violations.AddRange(PlacementChecks.SerialGroupKeepsProducerOrder(run));
        violations.AddRange(PlacementChecks.ItemSeesItsOwnContext(run));
        violations.AddRange(PlacementChecks.ComputeBoundAddsAtMostOneThread(run));
        violations.AddRange(ThreadChecks.HooksPairUp(run));
        violations.AddRange(ThreadChecks.SparesComeOnlyForBlocking(run));
        violations.AddRange(CountChecks.CountsEqualTheLedger(run));
        violations.AddRange(IdleChecks.WaitForIdleCompletesAfterEarlierItems(run));
        return violations;
    }
}
