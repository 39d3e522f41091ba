namespace SlimPool.Tests.Composition;

/// <summary>Queueing a program's items through the public API, each overload as the item's spec says.</summary>
internal sealed partial class ProgramRun
{
    private static readonly CancellationToken s_cancelled = new(canceled: true);

    private void QueueFromProducer(ItemSpec spec, string label, string producer, int order)
    {
        // A task carries its producer's ExecutionContext whatever the pool's option (Task semantics); a plain item only
        // when the pool flows contexts; neither under SuppressFlow.
        string? expected = spec.SuppressFlow ? null : spec.IsTask || Program.Pool.FlowExecutionContext ? producer : null;
        var record = new ItemRecord(this, spec, label, producer, order, parent: null, expected);
        if (spec.SuppressFlow)
        {
            using (ExecutionContext.SuppressFlow())
            {
                Accept(record, Submit);
            }
        }
        else
        {
            Accept(record, Submit);
        }
    }

    // The script's batch items from `start` on that one QueueBatch call takes: the same method (Queue or Try) and the
    // same flow, at most the pool's bound (a larger batch is refused with an ArgumentException: it could never fit).
    private int BatchEnd(ScriptOp[] script, int start)
    {
        ItemSpec first = script[start].Item!;
        int limit = Program.Pool.BoundedCapacity ?? int.MaxValue;
        int end = start + 1;
        while (end < script.Length && end - start < limit
            && script[end].Item is { IsBatch: true } next && next.Group == first.Group && next.IsTry == first.IsTry && next.SuppressFlow == first.SuppressFlow)
        {
            end++;
        }

        return end;
    }

    // A producer's consecutive batch items for one target, in one QueueBatch or TryQueueBatch call: all accepted or none.
    private void QueueBatchFromProducer(ScriptOp[] ops, int producer, int firstOp, string producerName, int firstOrder)
    {
        ItemSpec first = ops[0].Item!;
        string? expected = first.SuppressFlow ? null : Program.Pool.FlowExecutionContext ? producerName : null;
        ItemRecord[] records = [.. ops.Select((op, i) =>
            new ItemRecord(this, op.Item!, ComposeProgram.Label(producer, firstOp + i), producerName, firstOrder + i, parent: null, expected))];
        object?[] states = [.. records];
        foreach (ItemRecord record in records)
        {
            Ledger.Items.Enqueue(record);
        }

        long callStart = Ledger.Next();
        foreach (ItemRecord record in records)
        {
            record.CallStartSeq = callStart;
        }

        bool accepted;
        using (first.SuppressFlow ? ExecutionContext.SuppressFlow() : default(AsyncFlowControl?))
        {
            try
            {
                if (first.Group >= 0)
                {
                    SlimThreadPoolGroup group = Groups[first.Group];
                    accepted = first.IsTry ? group.TryQueueBatch(ItemRecord.RunState, states) : Queued(() => group.QueueBatch(ItemRecord.RunState, states));
                }
                else
                {
                    accepted = first.IsTry ? Pool.TryQueueBatch(ItemRecord.RunState, states) : Queued(() => Pool.QueueBatch(ItemRecord.RunState, states));
                }
            }
            catch (ObjectDisposedException)
            {
                accepted = false;
            }
        }

        long callEnd = Ledger.Next();
        foreach (ItemRecord record in records)
        {
            record.CallEndSeq = callEnd;
            record.AcceptedAt = Ledger.Elapsed;
            record.State = accepted ? AcceptState.Accepted : AcceptState.Refused;
        }
    }

    /// <summary>
    /// Queues the next step of a chain from inside the pool (the step running now is <paramref name="parent"/>): a pool
    /// chain onto the pool, a group's chain into the next group round (actors answering each other: with one group, the
    /// same one), each step a turn of its own when the group it lands in is idle.
    /// </summary>
    internal void QueueChainStep(ItemRecord parent)
    {
        ItemSpec spec = parent.Group < 0 ? parent.Spec : parent.Spec with { Group = (parent.Group + 1) % Groups.Length };
        var next = new ItemRecord(
            this,
            spec,
            $"{parent.Label.Split('/')[0]}/{parent.ChainIndex + 1}",
            parent.Producer,
            order: -1,
            parent,
            Program.Pool.FlowExecutionContext ? parent.ExpectedLocal : null);
        Accept(next, record =>
        {
            IThreadPool target = record.Group < 0 ? Pool : Groups[record.Group];
            if (record.Spec.IsTry)
            {
                return target.TryQueue(ItemRecord.RunChainStep, record, preferLocal: true);
            }

            target.Queue(ItemRecord.RunChainStep, record, preferLocal: true);
            return true;
        });
    }

    /// <summary>
    /// A Send item's call (the item running now is <paramref name="sender"/>): its callback, a record of its own, sent to
    /// the pool's SynchronizationContext or a group's. Accepted when Send returns (the callback has run, inline or as an
    /// item of the target), refused when it throws <see cref="ObjectDisposedException"/> (the target shut down, or
    /// abandoned the callback); any other exception is a surprise.
    /// </summary>
    internal void SendFrom(ItemRecord sender)
    {
        int target = sender.Spec.SendTarget;
        ItemSpec spec = sender.Spec with { Group = target, Kind = ItemKind.Compute, Priority = WorkItemPriority.Normal, Shape = QueueShape.Queue, Amount = 3 };
        var sent = new ItemRecord(this, spec, $"{sender.Label}>send", sender.Producer, order: -1, parent: null, Program.Pool.FlowExecutionContext ? sender.ExpectedLocal : null)
        {
            SentBy = sender,
            SenderThreadId = Environment.CurrentManagedThreadId,
        };
        SynchronizationContext context = target < 0 ? Pool.SynchronizationContext : Groups[target].SynchronizationContext;
        try
        {
            Accept(sent, record =>
            {
                context.Send(ItemRecord.RunSent, record);
                return true;
            });
        }
        catch (Exception exception)
        {
            sent.State = AcceptState.Refused;
            Ledger.Surprises.Enqueue($"{sender.Label}'s Send to {(target < 0 ? "the pool" : $"g{target}")} threw {exception.GetType().Name}: {exception.Message}");
        }
    }

    private void Accept(ItemRecord record, Func<ItemRecord, bool> submit)
    {
        Ledger.Items.Enqueue(record);
        record.CallStartSeq = Ledger.Next();
        bool accepted;
        try
        {
            accepted = submit(record);
        }
        catch (ObjectDisposedException)
        {
            accepted = false;
        }
        catch (TaskSchedulerException exception) when (exception.InnerException is ObjectDisposedException)
        {
            accepted = false; // a task the pool's or group's scheduler refused
        }

        record.CallEndSeq = Ledger.Next();
        record.AcceptedAt = Ledger.Elapsed;
        record.State = accepted ? AcceptState.Accepted : AcceptState.Refused;
    }

    // An async item starts through Run, the pool's or its group's: a refusal throws here (the scheduler must send a
    // refused continuation to the built-in pool instead, since it cannot tell the two apart).
    private bool Submit(ItemRecord record)
    {
        ItemSpec spec = record.Spec;
        if (spec.Kind == ItemKind.Async)
        {
            _ = spec.Group < 0 ? Pool.Run(record.RunAsync) : Groups[spec.Group].Run(record.RunAsync);
            return true;
        }

        if (spec.Kind == ItemKind.Continuation)
        {
            // Refused, as the scheduler would refuse it, once the target began to shut down (a continuation of accepted
            // work would still be taken through a drain; this one is new work).
            if (((SlimPool.Async.ISchedulingTarget)(spec.Group < 0 ? Pool : Groups[spec.Group])).IsShutDown)
            {
                return false;
            }

            TaskScheduler scheduler = spec.Group < 0 ? Pool.TaskScheduler : Groups[spec.Group].TaskScheduler;
            var antecedent = new TaskCompletionSource();
            _ = antecedent.Task.ContinueWith(static (_, state) => ((ItemRecord)state!).RunSync(), record, CancellationToken.None, TaskContinuationOptions.None, scheduler);

            // Completed here, in another context: the scheduler is asked to queue the continuation inside it (a thread
            // that is none of the pool's runs no task inline), before SetResult returns.
            ExecutionContext.Run(CompleterContext.Instance, static state => ((TaskCompletionSource)state!).SetResult(), antecedent);
            return true;
        }

        if (spec.Kind == ItemKind.LongRunning)
        {
            // Refused once the pool began to shut down, as a continuation is; one that races the shutdown the scheduler
            // either counts in (the shutdown then waits for it) or runs on the built-in pool.
            if (((SlimPool.Async.ISchedulingTarget)Pool).IsShutDown)
            {
                return false;
            }

            _ = Task.Factory.StartNew(ItemRecord.RunState, record, CancellationToken.None, TaskCreationOptions.LongRunning, Pool.TaskScheduler);
            return true;
        }

        IThreadPool target = spec.Group < 0 ? Pool : Groups[spec.Group];
        if (spec.Kind == ItemKind.CancelledWhileQueued)
        {
            // Not disposed: the item's registration on the token may outlive this call.
            var cancel = new CancellationTokenSource();
            bool accepted = spec.Shape switch
            {
                QueueShape.Queue => Queued(() => target.Queue(ItemRecord.RunState, record, cancel.Token)),
                QueueShape.TryQueue => target.TryQueue(ItemRecord.RunState, record, cancel.Token),
                QueueShape.QueueWorkItem => Queued(() => target.Queue(record, cancel.Token)),
                _ => target.TryQueue(record, cancel.Token),
            };
            cancel.Cancel();
            return accepted;
        }

        if (spec.Kind == ItemKind.Cancelled)
        {
            return spec.Shape switch
            {
                QueueShape.Queue => Queued(() => target.Queue(ItemRecord.RunState, record, s_cancelled)),
                QueueShape.TryQueue => target.TryQueue(ItemRecord.RunState, record, s_cancelled),
                QueueShape.QueueWorkItem => Queued(() => target.Queue(record, s_cancelled)),
                _ => target.TryQueue(record, s_cancelled),
            };
        }

        if (spec.Group < 0 && spec.Priority != WorkItemPriority.Normal)
        {
            return spec.Shape switch
            {
                QueueShape.Queue => Queued(() => Pool.Queue(ItemRecord.RunState, record, spec.Priority)),
                QueueShape.TryQueue => Pool.TryQueue(ItemRecord.RunState, record, spec.Priority),
                QueueShape.QueueWorkItem => Queued(() => Pool.Queue(record, spec.Priority)),
                _ => Pool.TryQueue(record, spec.Priority),
            };
        }

        return spec.Shape switch
        {
            QueueShape.Queue => Queued(() => target.Queue(ItemRecord.RunState, record)),
            QueueShape.TryQueue => target.TryQueue(ItemRecord.RunState, record),
            QueueShape.QueueWorkItem => Queued(() => target.Queue(record)),
            QueueShape.QueueAsync => Queued(() => QueueAsyncAndWait(spec.Group, record)),
            _ => target.TryQueue(record),
        };
    }

    // The producer waits for QueueAsync's task as Queue would block: accepted when it completes, refused (an
    // ObjectDisposedException) when the pool or group shut down first.
    private void QueueAsyncAndWait(int group, ItemRecord record)
    {
        ValueTask queued = group < 0 ? Pool.QueueAsync(ItemRecord.RunState, record) : Groups[group].QueueAsync(ItemRecord.RunState, record);
        queued.AsTask().GetAwaiter().GetResult();
    }

    private static bool Queued(Action queue)
    {
        queue();
        return true;
    }
}
