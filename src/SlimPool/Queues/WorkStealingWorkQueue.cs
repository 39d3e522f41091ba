using SlimPool.Workers;
using System.Diagnostics;

namespace SlimPool.Queues;

/// <summary>
/// A work-stealing <see cref="IWorkQueue"/>: per pool worker, a LIFO slot and a ring of the items queued on it, and a
/// batch of items it took from the shared queue; plus a shared <see cref="LockFreeQueue{TPositions}"/> (the one <see cref="LockFreeWorkQueue"/> wraps) for items queued from
/// outside the pool. The shape of tokio's and Go's schedulers.
/// </summary>
/// <remarks>
/// <para>An item queued on a worker thread of this queue's pool goes to that worker's slot, and the slot's previous
/// item to the back of its ring (<see cref="LocalRunQueue"/>, 256 entries; a full ring moves half of itself to the
/// shared queue). A worker takes its slot first (the item it queued last, whose data is still in its cache), but
/// after <see cref="WorkerQueues.SlotBudget"/> slot runs in a row the ring's oldest; then its batch; then the shared
/// queue (taking up to <see cref="RefillBatch.Capacity"/> more into its batch); then it steals from a sibling: half of
/// its ring in one step, or the oldest of its batch, or, after a grace, its slot. Items queued from other threads go to
/// the shared queue.</para>
/// <para><b>Nothing is buried.</b> The ring is first in, first out, and the slot cannot hold it back for more than
/// <see cref="WorkerQueues.SlotBudget"/> looks. Every <see cref="FairInterval"/> looks a worker makes a fair look, which
/// alternates. Every other one takes the oldest item queued from outside first (its batch, then one sibling's batch,
/// the next sibling each time, then the shared queue), so items that keep queueing successors cannot hold back what
/// waits there (items from outside, a group's yielded turn, a Low item's ticket): the k-th oldest starts within
/// k × 2 × <see cref="FairInterval"/> looks of the worker, sooner if a sibling steals it. Tokio checks its global queue
/// every 61 ticks for the same reason. The others look at one sibling first, the next each time: its batch's oldest,
/// else its ring's oldest, else its slot's entry if the slot still holds the entry it held at this worker's previous
/// such look at it. A worker whose item blocks without saying so would otherwise keep its batch, its ring and its slot
/// while a sibling that always finds work of its own (a chain that queues its steps on its own slot or in the shared
/// queue) never runs dry and never steals; the starvation guard sees items completing and does not step in. With the
/// look, the item at place p of a blocked worker's batch or ring starts within p × (workers - 1) × 2 ×
/// <see cref="FairInterval"/> looks of any sibling, its slot's entry within twice (workers - 1) such looks.</para>
/// <para><b>Order.</b> Items from the shared queue keep their order: a batch is taken oldest first, and a worker takes
/// from the shared queue only once its batch is empty. With one worker, items queued from one thread outside the pool
/// therefore start in the order queued. Items one worker queues start in the order queued, except its last, which
/// runs first (from the slot), and those a sibling steals.</para>
/// </remarks>
public sealed class WorkStealingWorkQueue : IWorkQueue, IFencedEnqueue
{
    /// <summary>A worker's fair looks come every this many looks (see the remarks).</summary>
    internal const int FairInterval = 61;

    [ThreadStatic]
    private static WorkerQueues? t_local;

    private readonly LockFreeQueue<PaddedHeadAndTail> _injection = new();
    private readonly Lock _attachLock = new();

    // The stacks of the threads attached here: a producer outside them skips the thread-local read (AttachedStacks).
    private AttachedStacks _attachedStacks = new();

    // Indexed by worker index; replaced (copy on write) under _attachLock, read without it by thieves.
    private volatile WorkerQueues?[] _locals = [];

    /// <summary>
    /// Called on the worker after a refill moved items into its batch; the pool sets it to treat the refill as a
    /// publication (a full fence, then its wake check): see <see cref="RefillFrom"/>.
    /// </summary>
    internal Action? OnRefilled { get; set; }

    /// <inheritdoc />
    public bool IsEmpty => IsEmptyLookingAtSlots(lookAtSlots: true);

    /// <summary>
    /// Whether nothing is queued but the workers' slots' entries: nothing a sibling may take at once. A slot's entry is
    /// its owner's to run next, and a sibling takes it only once the owner has left it a while (a grace, or a whole watch
    /// of <see cref="Scheduling.SpinThenParkIdleWait"/>), so an idle worker neither spins nor is woken for one.
    /// </summary>
    internal bool IsEmptyButSlots => IsEmptyLookingAtSlots(lookAtSlots: false);

    /// <summary>Whether some worker's slot holds an entry.</summary>
    internal bool AnySlotHeld
    {
        get
        {
            foreach (WorkerQueues? local in _locals)
            {
                if (local is not null && !local.Slot.IsEmpty)
                {
                    return true;
                }
            }

            return false;
        }
    }

    /// <summary>
    /// Reads every worker's slot version into <paramref name="versions"/> (by worker index, grown as workers attach);
    /// true if some slot's version moved since <paramref name="versions"/> was last read (an entry put or taken since),
    /// or if some slot holds an entry now (an odd version).
    /// </summary>
    internal bool ReadSlotVersions(ref long[] versions)
    {
        WorkerQueues?[] locals = _locals;
        bool active = false;
        if (versions.Length < locals.Length)
        {
            versions = new long[locals.Length];
            active = true;
        }

        for (int i = 0; i < locals.Length; i++)
        {
            long version = locals[i]?.Slot.Version ?? 0;
            active |= version != versions[i] || (version & 1) != 0;
            versions[i] = version;
        }

        return active;
    }

    /// <summary>
    /// Whether some slot still holds the entry it held when <paramref name="versions"/> was read (<see cref="ReadSlotVersions"/>):
    /// its version has not moved, so its owner has neither taken that entry nor put another since.
    /// </summary>
    internal bool AnySlotEntryUnmoved(long[] versions)
    {
        WorkerQueues?[] locals = _locals;
        int count = Math.Min(locals.Length, versions.Length);
        for (int i = 0; i < count; i++)
        {
            if ((versions[i] & 1) != 0 && locals[i]?.Slot.Version == versions[i])
            {
                return true;
            }
        }

        return false;
    }

    private bool IsEmptyLookingAtSlots(bool lookAtSlots)
    {
        if (!_injection.IsEmpty)
        {
            return false;
        }

        foreach (WorkerQueues? local in _locals)
        {
            if (local is not null && !(lookAtSlots ? local.IsEmpty : local.IsEmptyButTheSlot))
            {
                return false;
            }
        }

        return true;
    }

    /// <inheritdoc />
    public int Count
    {
        get
        {
            // Approximate: an item moving between a worker and the shared queue (a refill, a full ring's overflow)
            // may be counted in both places or in neither.
            long count = 0;
            foreach (WorkerQueues? local in _locals)
            {
                count += local?.Count ?? 0;
            }

            count += _injection.Count;

            return (int)Math.Min(count, int.MaxValue);
        }
    }

    /// <inheritdoc />
    public void Enqueue(in QueuedWorkItem item) => EnqueueFenced(item);

    // The shared queue's enqueue ends with a full fence (LockFreeQueue); a push onto the worker's own slot and ring
    // is plain stores, so that path leaves the fence to the caller.
    bool IFencedEnqueue.EnqueueFenced(in QueuedWorkItem item) => EnqueueFenced(item);

    // The shared queue, even on a worker: behind what is queued there, where every worker reaches it and no slot runs
    // ahead of it.
    bool IFencedEnqueue.EnqueueFencedShared(in QueuedWorkItem item) => ((IFencedEnqueue)_injection).EnqueueFenced(item);

    // A batch goes to the shared queue from any thread: its items keep their order, and idle siblings take them.
    bool IFencedEnqueue.EnqueueBatchFenced<TBatch>(scoped ref TBatch items, int start, int length) =>
        _injection.EnqueueBatchUntilRetired(ref items, start, length) > 0; // the shared queue is never retired

    /// <summary>
    /// On a worker of this queue, pushes the entry onto its slot with plain stores and returns true (the caller fences);
    /// elsewhere returns false and adds nothing.
    /// </summary>
    internal bool TryPushOwn(object callback, object? state, ExecutionContext? context)
    {
        if (!_attachedStacks.MayHoldCurrentThread)
        {
            Debug.Assert(t_local?.Owner != this, "the range holds every attached thread's stack (AttachedStacks)");
            return false; // not attached to this queue: no thread-local read
        }

        WorkerQueues? local = t_local;
        if (local is not null && local.Owner == this)
        {
            local.PushEntry(callback, state, context, _injection);
            return true;
        }

        return false;
    }

    /// <summary>The shared queue, for items from outside the pool; never retired. Its claim is a compare-and-swap, a full fence.</summary>
    internal LockFreeQueue<PaddedHeadAndTail> Shared => _injection;

    private bool EnqueueFenced(in QueuedWorkItem item)
    {
        WorkerQueues? local = _attachedStacks.MayHoldCurrentThread ? t_local : null;
        if (local is not null && local.Owner == this)
        {
            local.Push(item, _injection);
            return false;
        }

        return ((IFencedEnqueue)_injection).EnqueueFenced(item);
    }

    /// <inheritdoc />
    public bool TryDequeue(out QueuedWorkItem item)
    {
        WorkerQueues? local = t_local;
        if (local is not null && local.Owner != this)
        {
            local = null;
        }

        return TryDequeue(local, out item);
    }

    /// <summary>
    /// The current worker's own queues (after <see cref="AttachWorker"/> on this thread), for a worker loop that takes
    /// items through <see cref="TryDequeue(WorkerQueues?, out QueuedWorkItem)"/> without a thread-local read each time.
    /// </summary>
    internal WorkerQueues? CurrentWorkerQueues => t_local is { } local && local.Owner == this ? local : null;

    /// <summary>As <see cref="TryDequeue(out QueuedWorkItem)"/>, on the thread whose queues <paramref name="local"/> are (null: not a worker).</summary>
    internal bool TryDequeue(WorkerQueues? local, out QueuedWorkItem item)
    {
        Debug.Assert(local is null || (local == t_local && local.Owner == this), "a worker passes its own queues");
        if (local is not null)
        {
            // The fair look (see the remarks), every other one the oldest item from outside first, the others a
            // sibling's first. Otherwise the slot and the ring, then the batch.
            if (++local.Looks >= FairInterval)
            {
                local.Looks = 0;
                if (local.NextFairLookAtSiblingFirst()
                    ? TryTakeFromSibling(local, out item) || local.Batch.TryTake(out item) || TryTakeShared(local, out item)
                    : local.Batch.TryTake(out item) || TryTakeSiblingBatch(local, out item) || TryTakeShared(local, out item))
                {
                    return true;
                }
            }

            if (local.TryTakeOwn(out item) || local.Batch.TryTake(out item))
            {
                return true;
            }

            if (local.StealFirst)
            {
                local.StealFirst = false;
                if (TrySteal(local, out item))
                {
                    return true;
                }
            }
        }

        if (TryTakeShared(local, out item))
        {
            return true;
        }

        if (TrySteal(local, out item))
        {
            return true;
        }

        local?.Batch.ClearTaken();
        return false;
    }

    /// <summary>
    /// On a worker of this queue: its next look steals from its siblings before it takes from the shared queue. A Low
    /// item's ticket that deferred itself to the shared queue, because other work waits, says so: otherwise the worker
    /// would take the ticket straight back, again and again, and never reach the other work in a sibling's slot or ring.
    /// </summary>
    internal void LookAtSiblingsFirst()
    {
        WorkerQueues? local = t_local;
        if (local is not null && local.Owner == this)
        {
            local.StealFirst = true;
        }
    }

    // A fair look's second place: the oldest of one sibling's batch, the next sibling at each fair look, so each is
    // visited every (workers - 1) fair looks. One read of a line the sibling writes when its batch is empty; a take
    // like a thief's otherwise (RefillBatch.TryTake), the one item straight to this worker, so nothing is in transit.
    private bool TryTakeSiblingBatch(WorkerQueues local, out QueuedWorkItem item)
    {
        WorkerQueues?[] locals = _locals;
        for (int i = 0; i < locals.Length; i++)
        {
            WorkerQueues? victim = locals[local.NextFairVictim(locals.Length)];
            if (victim is not null && victim != local)
            {
                return victim.Batch.TryTake(out item);
            }
        }

        item = default;
        return false;
    }

    // A fair look at one sibling first (the next at each such look): its batch's oldest, else its ring's oldest, else its
    // slot's entry if the slot still holds the very entry it held at this worker's previous such look at it (its
    // version unchanged: the owner has not taken it since, so it is busy or blocked; the two looks are at least
    // 2 × FairInterval of this worker's looks apart, a grace that costs one read). A sibling whose item blocks without
    // saying so would otherwise keep what it queued itself for as long as this worker finds work of its own and never
    // steals. Each take moves the one item straight to this worker, so nothing is in transit. A take that fails here
    // only ends the fair look: the rest of TryDequeue still looks everywhere, so its contract is kept there.
    private bool TryTakeFromSibling(WorkerQueues local, out QueuedWorkItem item)
    {
        WorkerQueues?[] locals = _locals;
        for (int i = 0; i < locals.Length; i++)
        {
            int index = local.NextSiblingFirstVictim(locals.Length);
            WorkerQueues? victim = locals[index];
            if (victim is null || victim == local)
            {
                continue;
            }

            if (victim.Batch.TryTake(out item) || victim.Ring.TryStealOne(out item))
            {
                return true;
            }

            long version = victim.Slot.Version;
            return local.SawSlotVersionBefore(index, version) && victim.Slot.TryStealIfStill(version, out item);
        }

        item = default;
        return false;
    }

    // The shared queue's oldest item; a worker (whose batch is empty here) also takes a batch behind it.
    private bool TryTakeShared(WorkerQueues? local, out QueuedWorkItem item)
    {
        if (!_injection.TryDequeue(out item))
        {
            return false;
        }

        if (local is not null)
        {
            RefillFrom(local);
        }

        return true;
    }

    /// <inheritdoc />
    public void AttachWorker(int workerIndex)
    {
        ArgumentOutOfRangeException.ThrowIfNegative(workerIndex);
        var local = new WorkerQueues(this, workerIndex);
        (nuint Low, nuint High) stack = AttachedStacks.CurrentThreadStack();
        using (ThreadInterrupts.Hold(_attachLock))
        {
            WorkerQueues?[] locals = _locals;
            if (workerIndex < locals.Length && locals[workerIndex] is not null)
            {
                throw new InvalidOperationException($"Worker {workerIndex} is already attached to this queue.");
            }

            var copy = new WorkerQueues?[Math.Max(locals.Length, workerIndex + 1)];
            locals.CopyTo(copy, 0);
            copy[workerIndex] = local;
            _locals = copy;
            _attachedStacks.Add(stack); // before this thread's first push: it must find itself inside
        }

        t_local = local;
    }

    /// <inheritdoc />
    public void DetachWorker(int workerIndex)
    {
        WorkerQueues? local = t_local;
        if (local is null || local.Owner != this || local.WorkerIndex != workerIndex)
        {
            throw new InvalidOperationException($"Worker {workerIndex} is not attached to this queue on this thread.");
        }

        // The pool detaches only after seeing the queue empty, but never strand an entry: anything left
        // moves to the shared queue before the worker's queues become unreachable.
        while (local.Batch.TryTake(out QueuedWorkItem item) || local.TryTakeOwn(out item))
        {
            _injection.Enqueue(item);
        }

        using (ThreadInterrupts.Hold(_attachLock))
        {
            var copy = (WorkerQueues?[])_locals.Clone();
            copy[workerIndex] = null;
            _locals = copy;
        }

        t_local = null;
    }

    // A worker that took an item from the shared queue with its batch empty takes up to RefillBatch.Capacity more into
    // its batch while it is there, with one compare-and-swap on the shared head (LockFreeQueue.TryDequeueBatch):
    // consumers then meet on that line once a batch instead of once an item, which is what limited the drain of a
    // backlog queued from outside. The items stay visible (IsEmpty) and stealable by idle siblings, and keep their order.
    // The batch is in neither place between that one dequeue and the fill's exchange, so IsEmpty is not
    // linearizable: a sibling whose last look (its re-check before parking) falls in that window sees nothing and
    // parks, and the fill wakes nobody. If this worker's own item then blocks, the moved items would wait with a
    // sibling asleep. So a refill that moved anything ends like a publish: OnRefilled (a full fence, then the
    // producer's wake check), which pairs with that sibling's announce-then-recheck. (Modelled with -DWS in
    // SpinThenParkIdleWait.pml and StarvationGuard.pml: a batch of one or two leaves in one step and arrives item by
    // item, which includes the fill's arrival in one step.)
    private void RefillFrom(WorkerQueues local)
    {
        RefillBuffer buffer = default;
        int moved = _injection.TryDequeueBatch(buffer);
        if (moved == 0)
        {
            return;
        }

        local.Batch.Fill(((ReadOnlySpan<QueuedWorkItem>)buffer)[..moved]);
        OnRefilled?.Invoke();
    }

    // Room for one refill on the worker's stack: entries hold references, so no stackalloc.
    [System.Runtime.CompilerServices.InlineArray(RefillBatch.Capacity)]
    private struct RefillBuffer
    {
        private QueuedWorkItem _first;
    }

    // Two passes over the siblings, from a random one: first half of a ring, or a batch's oldest; then a slot, after
    // giving its owner a moment to take it itself (LifoSlot.TryStealAfterGrace: stealing it would move a chain of
    // items that each queue their successor to this core, and back, at every step). A batch's items came from outside
    // and are stolen without a grace. The grace fails when the slot's entry was taken meanwhile, or moved to the ring
    // (or the shared queue) by the owner's next push, which is then waited for and looked at, so the contract holds (a
    // failure saw its entries taken by others); the owner may have queued a successor since, which this call
    // misses. The caller then sees the queue non-empty and looks again instead of parking (WorkerLoop,
    // IdleWait.WaitForWork), and an entry whose owner stays busy is stolen on a later look. One call waits at most one
    // grace per sibling that holds a slot's entry, and only while no sibling holds more.
    private bool TrySteal(WorkerQueues? local, out QueuedWorkItem item)
    {
        WorkerQueues?[] locals = _locals;
        int count = locals.Length;
        if (count == 0)
        {
            item = default;
            return false;
        }

        int start = local is null ? 0 : local.NextVictimStart(count);
        for (int i = 0; i < count; i++)
        {
            WorkerQueues? victim = locals[(start + i) % count];
            if (victim is null || victim == local)
            {
                continue;
            }

            if (local is null ? victim.Ring.TryStealOne(out item) : StealHalf(victim, local, out item))
            {
                return true;
            }

            if (victim.Batch.TryTake(out item))
            {
                return true;
            }
        }

        for (int i = 0; i < count; i++)
        {
            WorkerQueues? victim = locals[(start + i) % count];
            if (victim is null || victim == local)
            {
                continue;
            }

            if (victim.Slot.TryStealAfterGrace(out item))
            {
                return true;
            }

            // The slot's entry may not have been taken but moved: the owner queued another item during the grace,
            // which pushes the slot's entry to its ring (or, with a full ring, to the shared queue). Failing now
            // would fail while an entry this look saw remains (IWorkQueue's contract), so wait for such a move to
            // end, then look where the entry went.
            victim.WaitForSlotMove();
            if ((local is null ? victim.Ring.TryStealOne(out item) : StealHalf(victim, local, out item)) || _injection.TryDequeue(out item))
            {
                return true;
            }
        }

        item = default;
        return false;
    }

    // Half of the victim's ring into the thief's: one item to run now, the rest at the back of the thief's ring. Those
    // were in neither ring between the claim and the thief's release store of its tail, so, like a refill, a steal that
    // moved any ends like a publish (OnRefilled: a full fence, then the wake check) for a sibling whose re-check fell
    // in that window. (Modelled in SpinThenParkIdleWait.pml with -DWS: items that leave one place in one step and
    // arrive in another item by item.)
    private bool StealHalf(WorkerQueues victim, WorkerQueues thief, out QueuedWorkItem item)
    {
        int taken = victim.Ring.TryStealHalfInto(thief.Ring, out item);
        if (taken > 1)
        {
            OnRefilled?.Invoke();
        }

        return taken > 0;
    }
}
