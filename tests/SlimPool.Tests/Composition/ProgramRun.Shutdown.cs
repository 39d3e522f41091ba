namespace SlimPool.Tests.Composition;

/// <summary>Shutdowns of the pool and its groups, the items they hand back, and waiting until everything is accounted for.</summary>
internal sealed partial class ProgramRun
{
    private static readonly TimeSpan s_quiet = TimeSpan.FromMilliseconds(5);
    private static readonly TimeSpan s_giveUpWhenQuietFor = TimeSpan.FromSeconds(3);

    /// <summary>Makes the shutdown call on this thread and waits for it (bounded); records when it returned and what it gave back.</summary>
    private void Shutdown(ShutdownSpec spec, bool isFinal)
    {
        var record = new ShutdownRecord(spec, Thread.CurrentThread.Name ?? "the test's thread", isFinal);
        Ledger.Shutdowns.Enqueue(record);
        record.CallStartSeq = Ledger.Next();
        if (spec.Kind == ShutdownKind.Dispose)
        {
            if (spec.Target < 0)
            {
                Pool.Dispose();
            }
            else
            {
                Groups[spec.Target].Dispose();
            }

            record.ReturnSeq = Ledger.Next();
            return;
        }

        using var cancel = new CancellationTokenSource();
        ShutdownMode mode = spec.Kind == ShutdownKind.Abandon ? ShutdownMode.Abandon : ShutdownMode.Drain;
        CancellationToken token = spec.Kind == ShutdownKind.CancelledDrain ? cancel.Token : CancellationToken.None;
        Task<ShutdownResult> shutdown = spec.Target < 0 ? Pool.ShutdownAsync(mode, token) : Groups[spec.Target].ShutdownAsync(mode, token);
        if (spec.Kind == ShutdownKind.CancelledDrain)
        {
            Pause(spec.CancelAfterMs);
            record.CancelSeq = Ledger.Next();
            cancel.Cancel();
        }

        if (!shutdown.Wait(HangLimit))
        {
            Hangs.Enqueue($"{record.Describe()} did not return within {HangLimit.TotalSeconds} s");
            return;
        }

        record.Result = shutdown.Result;
        record.ReturnSeq = Ledger.Next();
    }

    /// <summary>
    /// Queues an item that makes the shutdown call on a worker (to the pool, or into a group: <see cref="ShutdownFrom.GroupItem"/>),
    /// without waiting there; its return is when its task completes.
    /// </summary>
    private void ShutdownFromWorker(ShutdownSpec spec)
    {
        int host = spec.From == ShutdownFrom.GroupItem && Groups.Length > 0 ? Math.Max(spec.Target, 0) : -1;
        var record = new ShutdownRecord(spec, host < 0 ? "a pool worker" : $"an item of g{host}", isFinal: false);
        record.Run = () =>
        {
            OnHarnessRun(host);
            if (host >= 0)
            {
                GroupTrackers[host].Enter("the shutdown's item");
            }

            try
            {
                CallShutdownFromWorker(record);
            }
            finally
            {
                if (host >= 0)
                {
                    GroupTrackers[host].Exit("the shutdown's item");
                }
            }
        };

        // Refused when the pool (or the group) is shut down already: then no call is made.
        IThreadPool target = host < 0 ? Pool : Groups[host];
        _ = target.TryQueue(static state => ((ShutdownRecord)state!).Run!(), record);
    }

    private void CallShutdownFromWorker(ShutdownRecord record)
    {
        ShutdownSpec spec = record.Spec;
        Ledger.Shutdowns.Enqueue(record);
        record.CallStartSeq = Ledger.Next();
        if (spec.Kind == ShutdownKind.Dispose)
        {
            if (spec.Target < 0)
            {
                Pool.Dispose(); // on a worker: runs what is left here and returns without waiting
            }
            else
            {
                Groups[spec.Target].Dispose();
            }

            return;
        }

        // Not disposed: the delayed cancel below may come after the shutdown returned, and must then still cancel (a
        // disposed source throws, and the cancel it records would not have happened). It holds no timer.
        var cancel = new CancellationTokenSource();
        ShutdownMode mode = spec.Kind == ShutdownKind.Abandon ? ShutdownMode.Abandon : ShutdownMode.Drain;
        CancellationToken token = spec.Kind == ShutdownKind.CancelledDrain ? cancel.Token : CancellationToken.None;
        Task<ShutdownResult> shutdown = spec.Target < 0 ? Pool.ShutdownAsync(mode, token) : Groups[spec.Target].ShutdownAsync(mode, token);
        record.Recorded = shutdown.ContinueWith(
            done =>
            {
                record.ReturnSeq = Ledger.Next();
                record.Result = done.Result;
            },
            CancellationToken.None,
            TaskContinuationOptions.ExecuteSynchronously,
            TaskScheduler.Default);
        if (spec.Kind == ShutdownKind.CancelledDrain)
        {
            _ = Task.Delay(spec.CancelAfterMs).ContinueWith(
                _ =>
                {
                    record.CancelSeq = Ledger.Next();
                    cancel.Cancel();
                },
                CancellationToken.None,
                TaskContinuationOptions.ExecuteSynchronously,
                TaskScheduler.Default);
        }
    }

    /// <summary>
    /// Waits (bounded) for every shutdown called on a worker to complete: what it handed back is in its result only, which
    /// may come after the pool's final drain (a group's task completes on the built-in pool once the group drained).
    /// </summary>
    private void AwaitShutdownsFromWorkers()
    {
        foreach (ShutdownRecord record in Ledger.Shutdowns)
        {
            if (record.Recorded is { } recorded && !recorded.Wait(HangLimit))
            {
                Hangs.Enqueue($"{record.Describe()} did not complete within {HangLimit.TotalSeconds} s of the pool's final drain");
            }
        }
    }

    /// <summary>
    /// Takes what every shutdown handed back: a program item's record is counted and, unless async, run here once; an
    /// async item's task or continuation cannot be told apart, so those are counted (<see cref="Unidentified"/>).
    /// </summary>
    private void TakeBackAndRun()
    {
        // The pool's calls return one outcome object; a group's each copy one list that only grows: take the longest.
        IEnumerable<ShutdownResult> results = Ledger.Shutdowns
            .Where(r => r.IsPool && r.Result is not null)
            .Select(r => r.Result!)
            .Distinct(ReferenceEqualityComparer.Instance)
            .Cast<ShutdownResult>()
            .Concat(Ledger.Shutdowns
                .Where(r => !r.IsPool && r.Result is not null)
                .GroupBy(r => r.Spec.Target)
                .Select(g => g.Select(r => r.Result!).MaxBy(result => result.AbandonedCount)!));
        var toRun = new List<AbandonedWorkItem>();
        foreach (AbandonedWorkItem item in results.SelectMany(result => result.AbandonedItems))
        {
            object? state = item.State;
            if ((state as ItemRecord ?? item.Callback as ItemRecord ?? (state as Task)?.AsyncState as ItemRecord) is { } record)
            {
                record.OnHandedBack();
                if (!record.IsAsync && record.HandBacks == 1)
                {
                    toRun.Add(item);
                }
            }
            else if (state is not ShutdownRecord && (state as Task)?.AsyncState is not ProgramRun)
            {
                _unidentified.Enqueue($"{item.Callback.GetType().Name}({state?.GetType().Name ?? "null"})");
            }
        }

        foreach (AbandonedWorkItem item in toRun)
        {
            ItemRecord.RunHandedBack(item);
        }
    }

    /// <summary>Waits until every accepted item ran or came back and nothing has moved for a moment, or until it is clear nothing will.</summary>
    private void Settle()
    {
        TimeSpan deadline = Ledger.Elapsed + HangLimit;
        while (Ledger.Elapsed < deadline)
        {
            TimeSpan quiet = Ledger.SinceActivity;
            if (quiet >= s_quiet && IsAccountedFor())
            {
                Settled = true;
                return;
            }

            if (quiet >= s_giveUpWhenQuietFor)
            {
                return; // nothing ran for 3 s after the pool's drain (a starved built-in pool may hold a late continuation that long): what is missing is lost
            }

            Thread.Sleep(2);
        }
    }

    private bool IsAccountedFor()
    {
        int asyncLeft = 0;
        foreach (ItemRecord item in Ledger.Items)
        {
            if (item.State == AcceptState.Pending)
            {
                return false;
            }

            if (item.State != AcceptState.Accepted || item.Spec.Kind == ItemKind.Cancelled)
            {
                continue;
            }

            if (item.IsAsync)
            {
                asyncLeft += item.IsComplete || item.HandBacks > 0 || item.StoppedBecause is not null || item.EndedAtRefusedSwitch ? 0 : 1;
            }
            else if (item.Steps[0].Runs == 0 && item.HandBacks == 0 && item.Spec.Kind != ItemKind.CancelledWhileQueued)
            {
                return false; // a CancelledWhileQueued item that never ran was skipped (CountChecks counts the skips)
            }
        }

        return asyncLeft == _unidentified.Count;
    }
}
