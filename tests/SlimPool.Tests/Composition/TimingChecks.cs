namespace SlimPool.Tests.Composition;

/// <summary>When items start: never after a shutdown returned, soon after they were accepted, and in order on one worker.</summary>
internal static class TimingChecks
{
    /// <summary>Generous: the machine is shared and small; the programs take milliseconds.</summary>
    public static readonly TimeSpan StartTimeBound = TimeSpan.FromSeconds(2);

    /// <summary>A worker's fair look at the oldest item from outside comes every this many looks (Tokio's 61).</summary>
    public const int FairInterval = 61;

    /// <summary>
    /// Nothing starts after a shutdown of the pool (or of the item's group) returned, on any thread, except what was
    /// running then: a step that runs inside its own queue call (a late producer runs its own item, and what that item
    /// posts to the pool while it runs, such as the steps after an <c>await Task.Yield()</c>; a full bounded queue runs it
    /// inline; a Send's callback run inline, part of the item that sent it); a continuation posted after an abandon began (refused, it runs on the built-in pool, never dropped); and, after a drain whose token returned it early, at most one step per worker, as many
    /// as the result says were running.
    /// </summary>
    public static IEnumerable<Violation> NothingStartsAfterShutdownReturned(ProgramRun run)
    {
        var findings = new Findings(Promise.NothingAfterShutdown);
        var steps = run.StepsRun.Where(s => !s.Step.ByTest).ToList();
        foreach (ShutdownRecord shutdown in run.Ledger.Shutdowns.Where(r => r.ReturnSeq is not null))
        {
            long returned = shutdown.ReturnSeq!.Value;
            var late = steps
                .Where(s => s.Step.StartSeq > returned && (shutdown.IsPool || s.Item.Group == shutdown.Spec.Target))
                .Where(s => s.Item.SentBy is null ? s.Step.StartSeq > s.Item.CallEndSeq : !s.Item.RanInline)
                .Where(s => !run.MayBeRefusedContinuation(s.Item, s.Index, s.Step))
                .OrderBy(s => s.Step.StartSeq)
                .ToList();
            if (shutdown.MayReturnEarly)
            {
                // Already running when the early result was made: the first late step of each worker, and of each
                // long-running task's own thread (counted running from before its delegate begins), up to the count.
                int allowed = shutdown.IsPool ? shutdown.Result?.RunningWorkItemCount ?? 0 : run.Program.Groups[shutdown.Spec.Target].MaxConcurrency;
                var firstPerWorker = late
                    .Where(s => run.IsWorker(s.Step.ThreadName) || (s.Item.Spec.Kind == ItemKind.LongRunning && s.Index == 0 && run.IsLongRunningThread(s.Step.ThreadName)))
                    .GroupBy(s => s.Step.ThreadId).Select(g => g.First()).Take(allowed).ToHashSet();
                late = [.. late.Where(s => !firstPerWorker.Contains(s))];
            }

            foreach ((ItemRecord item, int index, StepRecord step) in late)
            {
                findings.Add($"{item.StepName(index)} started on {ProgramRun.Where(step)} after {shutdown.Describe()} had returned" +
                    (shutdown.Result is { } result ? $" (result: {result.Mode}, {result.AbandonedCount} handed back, {result.RunningWorkItemCount} running)" : string.Empty));
            }
        }

        return findings.ToViolations();
    }

    /// <summary>
    /// Every accepted item starts within <see cref="StartTimeBound"/> of its acceptance; and an item queued to the pool from
    /// outside (not Low, whose aging is by time) starts before the workers have started more than
    /// 61 × (the items queued from outside before it + 32) × (the workers seen) other turns (<see cref="TurnStarts"/>):
    /// the k-th oldest item from outside starts within k fair looks of a worker, whatever items queued from inside the pool
    /// do meanwhile.
    /// </summary>
    public static IEnumerable<Violation> StartsWithinBound(ProgramRun run)
    {
        var findings = new Findings(Promise.StartBound);
        long[] starts = TurnStarts(run);
        int workers = Math.Max(1, run.StepsRun.Where(s => run.IsWorker(s.Step.ThreadName)).Select(s => s.Step.ThreadId).Distinct().Count());
        long[] outsideAccepted = [.. run.Accepted.Where(i => i.Order >= 0).Select(i => i.CallEndSeq).Order()];
        foreach (ItemRecord item in run.Accepted.Where(i => i.Steps[0].PoolRuns > 0 && !i.Steps[0].ByTest && !run.Raced(i)))
        {
            StepRecord first = item.Steps[0];
            TimeSpan waited = first.StartTime - item.AcceptedAt;
            if (waited > StartTimeBound)
            {
                findings.Add($"{item.Label} started {waited.TotalMilliseconds:0} ms after it was accepted (bound {StartTimeBound.TotalSeconds} s)");
                continue;
            }

            if (item.Group >= 0 || item.Order < 0 || item.Spec.Priority == WorkItemPriority.Low || first.StartSeq < item.CallEndSeq)
            {
                continue;
            }

            long others = CountBetween(starts, item.CallEndSeq, first.StartSeq);
            long ahead = CountBetween(outsideAccepted, 0, item.CallEndSeq);
            long bound = (long)FairInterval * (ahead + 32) * workers;
            if (others > bound)
            {
                findings.Add($"{item.Label}, queued from outside with {ahead} items queued before it, waited while {others} other turns started " +
                    $"(bound {bound} on {workers} worker(s)): buried behind items queued from inside the pool");
            }
        }

        return findings.ToViolations();
    }

    /// <summary>
    /// When the turns started: the steps that started while no other step ran on their thread. A step that started inside
    /// another on the same thread ran as part of it, not in a turn of its own: a full bounded <c>Queue</c> on a worker runs
    /// the item inline (nested up to <c>SlimThreadPool.MaxInlineDepth</c> deep, so a chain in a full pool takes up to that
    /// many more steps a turn), and a <c>Dispose</c> on a worker runs the leftovers inside the item that called it.
    /// </summary>
    private static long[] TurnStarts(ProgramRun run)
    {
        var turns = new List<long>();
        foreach (var thread in run.StepsRun.Where(s => !s.Step.ByTest).Select(s => s.Step).GroupBy(s => s.ThreadId))
        {
            long outerEnd = long.MinValue; // the end of the outermost step running on this thread, in sequence order
            foreach (StepRecord step in thread.OrderBy(s => s.StartSeq))
            {
                if (step.StartSeq < outerEnd)
                {
                    continue; // nested: part of the outer step's turn
                }

                turns.Add(step.StartSeq);
                outerEnd = step.EndSeq == 0 ? long.MaxValue : step.EndSeq; // a step that never ended holds its thread
            }
        }

        turns.Sort();
        return [.. turns];
    }

    /// <summary>
    /// With one worker (and no spare that ran anything), a producer's Normal items queued to the pool from outside start
    /// in the order queued: for Locked and LockFree a FIFO queue, for WorkStealing its batch from the shared queue.
    /// </summary>
    public static IEnumerable<Violation> PoolKeepsProducerOrderOnOneWorker(ProgramRun run)
    {
        var findings = new Findings(Promise.PoolOrder);
        var threads = run.StepsRun.Where(s => run.IsWorker(s.Step.ThreadName)).Select(s => s.Step.ThreadId).Distinct().Count();
        if (run.Program.Pool.Workers != 1 || threads > 1)
        {
            return findings.ToViolations();
        }

        foreach (var producer in run.Accepted
            .Where(i => i.Group < 0 && i.Order >= 0 && i.Spec.Priority == WorkItemPriority.Normal && i.Spec.Kind != ItemKind.Cancelled)
            .Where(i => i.Steps[0].PoolRuns > 0 && run.IsWorker(i.Steps[0].ThreadName) && !run.Raced(i))
            .GroupBy(i => i.Producer))
        {
            ReportInversions(producer.OrderBy(i => i.Order).ToList(), findings, "on the pool's one worker");
        }

        return findings.ToViolations();
    }

    /// <summary>Reports items of one producer, in queue order, that started before an item queued ahead of them.</summary>
    public static void ReportInversions(List<ItemRecord> inQueueOrder, Findings findings, string where)
    {
        for (int i = 1; i < inQueueOrder.Count; i++)
        {
            ItemRecord earlier = inQueueOrder[i - 1];
            ItemRecord later = inQueueOrder[i];
            if (later.Steps[0].StartSeq < earlier.Steps[0].StartSeq)
            {
                string startOrder = string.Join(", ", inQueueOrder.OrderBy(x => x.Steps[0].StartSeq).Select(x => x.Label));
                findings.Add($"{later.Label} started before {earlier.Label}, queued before it by the same producer, {where}; start order: {startOrder}");
                return;
            }
        }
    }

    private static long CountBetween(long[] sorted, long after, long before)
    {
        int from = UpperBound(sorted, after);
        int to = LowerBound(sorted, before);
        return Math.Max(0, to - from);
    }

    private static int LowerBound(long[] sorted, long value)
    {
        int index = Array.BinarySearch(sorted, value);
        if (index < 0)
        {
            return ~index;
        }

        while (index > 0 && sorted[index - 1] == value)
        {
            index--;
        }

        return index;
    }

    private static int UpperBound(long[] sorted, long value)
    {
        int index = Array.BinarySearch(sorted, value);
        if (index < 0)
        {
            return ~index;
        }

        while (index < sorted.Length && sorted[index] == value)
        {
            index++;
        }

        return index;
    }
}
