using SlimPool.Diagnostics;
using SlimPool.Lifecycle;
using SlimPool.Queues;
using SlimPool.Scheduling;
using SlimPool.Workers;

namespace SlimPool.Groups;

/// <summary>A turn: running the group's items on the pool, ending or yielding the turn, and handing items back to an
/// abandon.</summary>
internal sealed partial class GroupTurns
{
    /// <summary>
    /// The group's abandon (after <see cref="Close"/>): turns stop taking items and the queued ones are added to
    /// <paramref name="abandoned"/>. Items queued by producers that raced the close are run afterwards.
    /// </summary>
    public void Abandon(List<AbandonedWorkItem> abandoned)
    {
        Interlocked.Exchange(ref _abandoning, 1);
        while (TryTake(out QueuedWorkItem item))
        {
            ShutdownCoordinator.HandBack(item, abandoned);
            OnItemNotRun();
        }

        // A turn that ended during the sweep did not look at the queue again (EndTurn), nor drop it, so do both here,
        // after a full fence: an item that turn would have seen is seen now and gets a turn; an empty queue goes, as
        // that turn's end would have dropped it (a drop is safe at any moment).
        Interlocked.Exchange(ref _swept, 1);
        if (!IsQueueEmpty)
        {
            if (TryTakeTurn(PublisherOne, out long seen))
            {
                PublishTaken(preferLocal: false);
                return;
            }

            WaitForPublishedTurn(seen); // the items are the held turns' once one is published
        }

        DropQueueIfEmpty();
    }

    /// <summary>
    /// One turn: runs the group's items on this thread until the queue is empty or the quantum is spent. On one of the
    /// pool's workers, the turn then runs the next group's turn if that is what the worker would take next
    /// (<see cref="SlimThreadPool.TryTakeNextTurn"/>), and so on.
    /// </summary>
    public void Execute()
    {
        // Everything the turn needs of its thread comes from one thread-local read (PoolThreadLocals).
        PoolThreadLocals locals = PoolThreadLocals.GetOrCreate();
        WorkerState? worker = locals.StateOn(_pool); // where the pool counts this turn's items; null off its workers

        // Only a turn the worker's loop runs itself is an item of the loop's: its items get the worker's name and
        // priority back after them, as the loop's items do, and it takes the next turn. One run inside another item (a
        // Dispose's, a shutdown's leftovers, a late producer's on another pool's worker) leaves the thread to that item,
        // whose name and priority they are, and returns to it; the loop's next take must wait for that item.
        bool loopItem = worker is not null && ReferenceEquals(locals.LoopItem, this);
        WorkerThreadIdentity? identity = loopItem ? locals.Identity : null;
        ExecuteTurn(locals, worker, identity);
        if (loopItem)
        {
            while (_pool.TryTakeNextTurn(locals) is { } next)
            {
                next.ExecuteTurn(locals, worker, identity);
            }
        }
    }

    private void ExecuteTurn(PoolThreadLocals locals, WorkerState? worker, WorkerThreadIdentity? identity)
    {
        // The slow-item watch names each item with the group, and the outer item again after (a turn run inside an item,
        // by a Dispose on a worker).
        WorkerState? named = _pool.SlowItems is null ? null : worker;
        var outerItem = named?.EnterNested(this, null) ?? default;
        named?.SetRunningGroup(_group);
        Outer outer = Enter(locals); // a turn run inside another group's item suspends that one until Exit
        try
        {
            RunTurn(locals, worker, identity);
        }
        finally
        {
            named?.RestoreRunning(outerItem);
            Exit(locals, outer);
            ItemAccounting.MarkNotAUserItem(locals); // the turn counted the items it ran
        }
    }

    /// <summary>The pool abandoned this turn before it ran: it gives the turn back and hands back the group's queued items.</summary>
    public void HandBack(List<AbandonedWorkItem> abandoned)
    {
        Interlocked.Add(ref _turns, TurnEnded);
        HandBackQueued(abandoned);
    }

    /// <summary>
    /// The pool's abandon: hands back the items queued now, whether or not a turn is queued or running (a running turn
    /// stops at its next item, <see cref="SlimThreadPool.IsHandingBack"/>).
    /// </summary>
    public void HandBackQueued(List<AbandonedWorkItem> abandoned)
    {
        while (TryTake(out QueuedWorkItem item))
        {
            ShutdownCoordinator.HandBack(item, abandoned);
            OnItemNotRun();
        }
    }

    // A quantum (TurnQuantum) ends after MaxItemsPerTurn items or MaxTurnDuration, whichever comes first.
    // A spent quantum gives the worker back only if the pool has other items queued (another group's turn among them):
    // with nothing else waiting, moving the turn to the back of an empty queue would only move it to another core.
    // Items run are added to _ran once a quantum rather than once an item, and before the turn yields or ends, so the
    // count trails by at most one quantum: with an interlocked add, or as a serial group's turn ends with a plain store
    // (EndTurn).
    private void RunTurn(PoolThreadLocals locals, WorkerState? worker, WorkerThreadIdentity? identity)
    {
        var contexts = new ThreadContexts(locals.Thread, _group.SynchronizationContext);
        WorkItemRunner runner = _pool.Runner;
        WorkItemDurations durations = _pool.Durations;
        bool naming = _pool.SlowItems is not null; // the slow-item watch reads what each worker runs
        long counted = 0; // items run this turn and not yet added to _ran
        // A hint from the group's previous turn (TurnQuantum.IsShort): read and written by the turns only, a plain field;
        // two turns of a wider group may race on it, and either value is safe.
        var quantum = new TurnQuantum(_maxItemsPerTurn, _maxTurnTicks, _shortItems);
        naming &= worker is not null;

        // A blocking scope one of the group's items leaves open ends with that item, not with the turn (a pool item): on
        // whichever pool's worker runs the turn (a turn a late producer runs itself may run on another pool's worker,
        // whose scope an item may open).
        WorkerBlockingState? blocking = worker is not null ? worker.Blocking : locals.Blocking;

        // Whether a listener has the run-time histogram on, read once a turn (a listener that starts mid-turn samples from
        // the next one): a serial queue's items cost a turn each, and every read on that path shows.
        bool timing = worker is not null && durations.IsEnabled;
        while (true)
        {
            if (_pool.IsHandingBack)
            {
                // The pool is abandoning: keep the turn and queue it again, so the pool's shutdown hands the group's
                // items back with its own.
                AddRan(counted);
                KeepShortItems(quantum);
                _pool.Publisher.PublishAccepted(this, preferLocal: false, Priority);
                return;
            }

            if (IsSweeping || !TryTake(out QueuedWorkItem item))
            {
                KeepShortItems(quantum);
                bool again = EndTurn(counted, locals);
                counted = 0;
                if (!again)
                {
                    return;
                }

                continue;
            }

            quantum.OnItemTaken();
            if (naming)
            {
                worker!.SetRunning(item.StoredCallback, item.StoredState);
            }

            long sampledAt = timing ? durations.StartSample() : 0; // timed on workers only (WorkItemDurations)
            long scopesBefore = blocking?.Serial ?? 0;
            runner.Execute(item, contexts);
            identity?.Restore(); // the worker's name and priority, as after the loop's items
            if (blocking is not null && blocking.Serial != scopesBefore)
            {
                blocking.EndOfNestedItem(scopesBefore);
            }

            _pool.OnItemCompleted(worker);
            counted++;
            if (sampledAt != 0)
            {
                durations.Record(sampledAt, _group);
            }

            if (quantum.OnItemRan())
            {
                if (!IsQueueEmpty && _pool.HasQueuedWork)
                {
                    // Quantum spent with items waiting here and elsewhere: give the worker back, keeping the turn, which
                    // goes behind what the pool has queued (its shared queue, not this worker's own slot).
                    AddRan(counted);
                    KeepShortItems(quantum);
                    _pool.Publisher.PublishAccepted(this, preferLocal: false, Priority);
                    return;
                }

                AddRan(counted);
                counted = 0;
                quantum.Restart();
            }
        }
    }

    // Keeps the turn's verdict on its items for the group's next turn, before the turn is given back or queued again (the
    // next turn starts after either); stored only when it changed, since producers read this cache line.
    private void KeepShortItems(in TurnQuantum quantum)
    {
        if (quantum.IsShort != _shortItems)
        {
            _shortItems = quantum.IsShort;
        }
    }

    // The group's abandon has begun and not yet swept the queue: turns leave what is queued to the sweep.
    private bool IsSweeping => Volatile.Read(ref _abandoning) != 0 && Volatile.Read(ref _swept) == 0;

    // Adds the `ran` items the turn ran since its last count and gives the turn back; true if this thread took it again
    // because an item is waiting (the turn then runs on).
    private bool EndTurn(long ran, PoolThreadLocals locals)
    {
        // The items the turn ran are added first. A serial group's turn is the only writer of _ran while it holds the
        // group's one turn (the next turn is taken after the decrement below, and sees this write through the turn's
        // hand-off), so it adds them with a plain store, and the decrement is the full fence between that store and
        // CheckDrained's look at _closed; a wider group's turns add with an interlocked add, as AddRan does.
        long ranNow = 0;
        if (ran != 0)
        {
            if (_maxConcurrency == 1)
            {
                ranNow = _ran + ran;
                Volatile.Write(ref _ran, ranNow);
            }
            else
            {
                ranNow = Interlocked.Add(ref _ran, ran);
            }
        }

        // The decrement (with the generation's increment, one add) is a full fence before the reads of _queue and of
        // its tail: it pairs with Enqueue's claim (a compare-and-swap) followed by its read of _turns. See the class
        // remarks.
        Interlocked.Add(ref _turns, TurnEnded);
        if (ran != 0)
        {
            CheckDrained(ranNow, Volatile.Read(ref _notRun));
        }

        if (IsSweeping)
        {
            return false; // Abandon looks at the queue once more after its sweep
        }

        if (!IsQueueEmpty)
        {
            if (TryTakeTurn(publisher: 0, out long seen))
            {
                return true; // runs on: no publish
            }

            // Another took the turn for the items seen: the worker leaves them once that turn is published, so that a
            // drain's workers do not leave before it (see the remarks).
            WaitForPublishedTurn(seen);
        }

        // The queue is empty: on one of the pool's workers it is kept until that worker parks or more other groups
        // ended a turn on it (DeferredQueueDrops), so a serial queue that empties between items is not remade for each;
        // elsewhere it is dropped now. Either is safe at any time, the turn held or not: a retire succeeds only on an
        // empty queue and makes every later enqueue into it fail.
        if (Volatile.Read(ref _queue) is not null)
        {
            if (locals.Pool == _pool && locals.QueueDrops is { } drops)
            {
                drops.Add(this);
            }
            else
            {
                DropQueueIfEmpty();
            }
        }

        return false;
    }
}
