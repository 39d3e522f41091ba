using System.Diagnostics;
using SlimPool.Queues;
using SlimPool.Workers;

namespace SlimPool.Scheduling;

/// <summary>
/// The default idle wait: a worker that runs out of work searches (spins over the queue) for a short while,
/// then parks on its own <see cref="Parker"/>. Parked workers form a last-in, first-out stack.
/// </summary>
/// <remarks>
/// <para><b>State.</b> <c>_state</c> packs three counts: the number of <i>searching</i> workers (awake, not
/// running an item, looking at the queue) in its low 16 bits, the number of parked workers that <i>watch</i> the slots
/// (see "Slots") in the next 16, and the number of <i>parked</i> workers (watchers included) above.
/// Every change is an interlocked add (a full fence). The parked and watching counts change only under <c>_lock</c>,
/// together with the stack and <c>Slot.IsWatching</c>, so the counts and the stack agree whenever the lock is free.</para>
/// <para><b>Producer</b> (<see cref="OnWorkQueued"/>, after publish + full fence): wake one parked worker
/// only if nobody is searching. A searcher will find the item: either it looks at the queue again while
/// searching, or it announces itself parked, and that announcement is an interlocked write that is followed
/// by a re-check of the queue. Because the producer read the state before that write, the re-check sees the
/// producer's item (store-buffer pattern, see <see cref="IdleWait"/>). The woken worker is counted as
/// searching by its waker, under the lock, so concurrent producers do not wake a second one (no herd).</para>
/// <para><b>Chain.</b> When the last searcher takes an item and more items wait while workers are parked, it
/// wakes the next worker. That covers items whose producers skipped the wake because someone was
/// searching.</para>
/// <para><b>Slots.</b> With the work-stealing queue, a worker's slot holds the item it queued last, which it runs next;
/// a sibling takes it only if the owner leaves it there (blocked in an item without saying so). An idle worker therefore
/// neither spins for a slot's entry nor is woken for one: its spin and its re-check look at everything else
/// (<see cref="WorkStealingWorkQueue.IsEmptyButSlots"/>): a spinning sibling costs the worker running a chain through
/// its slot about a fifth of its speed (decisions.md has the measurements). Instead a parking worker <i>watches</i>: it parks
/// <see cref="WatchMilliseconds"/> at a time, and after each park reads the slots' versions. An entry whose version did
/// not move for a whole park sends it back to search, and the worker loop's steal takes that entry after its grace; slots
/// whose entries come and go keep it watching; slots quiet for a few looks end the watch, and it parks as usual. A
/// producer that pushes onto its own slot wakes a parked worker only if nobody searches or watches
/// (<see cref="IsWakeDue"/>), so an owner that blocks with an entry on its slot has it taken within about two watches.
/// Stopping a watch is an interlocked change followed by a look at the whole queue, the slots included: the same
/// store-buffer pairing as the announce and its re-check, with the producer's push, fence and read of the watching
/// count.</para>
/// <para><b>Model.</b> <c>SpinThenParkIdleWait.pml</c> beside this file is a Promela model of this class and of
/// the producer's side; <c>eng/check-models.sh</c> checks with Spin that no execution strands an item while
/// every worker is parked, that no wake is issued while a worker searches, and that wakes stay within twice the
/// pushes, and that removing the re-check in <see cref="WaitForWork"/> breaks the first property; with slots
/// (<c>-DSLOTS</c>), that no slot's entry is left behind its blocked owner while a worker is parked, which leaving out
/// the look after a watch ends, or the wake for a slot's entry, breaks. Each step of the model names the method it
/// mirrors.</para>
/// <para><b>Ownership.</b> <c>Slot.IsSearching</c> is read and written only by its worker; a waker that moves
/// a worker from parked to searching changes only the shared count, and the worker sets its flag when it
/// returns from <see cref="Parker.Park()"/>.</para>
/// </remarks>
internal sealed class SpinThenParkIdleWait : IdleWait
{
    private const long SearchingOne = 1;
    private const long SearchingMask = 0xFFFF;
    private const long WatchingOne = 1L << 16;
    private const long WatchingMask = 0xFFFFL << 16;
    private const long ParkedOne = 1L << 32;

    /// <summary>How long a watching worker parks between its looks at the slots (see the remarks, "Slots").</summary>
    internal const int WatchMilliseconds = 1;

    // A watcher stops watching once no slot's entry came or went, and none was held, at this many looks in a row.
    private const int WatchQuietLooks = 8;
    private const int YieldMask = 7; // looks 7, 15, 23, ... (i & YieldMask) == YieldMask yield the core

    private readonly Lock _lock = new();
    private readonly int _spinIterations;
    private readonly WorkStealingWorkQueue? _stealingQueue; // the queue, when its slots are left out of the spin's looks
    // Indexed by worker; grown (copied, the Slot objects kept) under _lock when a worker beyond it starts. Read
    // without the lock: a worker reads its own slot, a waker the slot of a worker it popped, which had started.
    private volatile Slot[] _slots;
    private int[] _parkedStack; // worker indexes, guarded by _lock; as long as _slots
    private int _parkedTop; // guarded by _lock
    private PaddedLong _state;

    public SpinThenParkIdleWait(IWorkQueue queue, int initialWorkers, int spinIterations)
        : base(queue)
    {
        _slots = [];
        _parkedStack = [];
        Grow(initialWorkers);
        _spinIterations = spinIterations;
        _stealingQueue = queue as WorkStealingWorkQueue;
    }

    public override void OnWorkerStarted(int worker)
    {
        if (worker >= _slots.Length)
        {
            using (ThreadInterrupts.Hold(_lock))
            {
                Grow(worker + 1);
            }
        }

        // A worker starts out searching.
        _slots[worker].IsSearching = true;
        Interlocked.Add(ref _state.Value, SearchingOne);
    }

    // Whether nothing is queued that an idle worker may take at once: the whole queue, or a work-stealing queue's all
    // but its slots' entries (see the remarks, "Slots").
    private bool IsEmptyButSlots => _stealingQueue?.IsEmptyButSlots ?? Queue.IsEmpty;

    /// <inheritdoc />
    /// <remarks>A slot's entry is its owner's; the parked workers watch it, and a spare leaving hands that watch on
    /// (<see cref="Watch"/>).</remarks>
    public override bool IsEmptyForALeavingSpare => IsEmptyButSlots;

    public override void OnWorkQueued()
    {
        // Model: SpinThenParkIdleWait.pml, Producer. The queue check is only on the rare path where a wake is
        // due: a producer delayed between publishing and this read may find its item already taken (by a
        // worker a chain wake woke for it); waking someone then would only cost a system call. An empty queue
        // means no item is stranded, so skipping the wake cannot lose one.
        long state = Volatile.Read(ref _state.Value);
        if ((state & SearchingMask) == 0 && state >= ParkedOne && IsWakeDue(state))
        {
            WakeOne();
        }
    }

    // With nobody searching and somebody parked, whether the queue holds what a parked worker is owed a wake for: an
    // item any worker may take, or, while nobody watches the slots, a slot's entry too (one look at the queue, separate
    // from the read of the state that gives `state`).
    private bool IsWakeDue(long state) =>
        (state & WatchingMask) == 0 ? !Queue.IsEmpty : !IsEmptyButSlots;

    public override void OnWorkTaken(int worker)
    {
        Slot slot = _slots[worker];
        if (!slot.IsSearching)
        {
            return;
        }

        slot.IsSearching = false;
        long state = Interlocked.Add(ref _state.Value, -SearchingOne);

        // Chain: we were the last searcher; if more work waits and someone is parked, pass the search on.
        // The interlocked add above is the fence that pairs with producers that skipped their wake while we
        // were searching: either they see no searcher now and wake someone, or we see their item here.
        if ((state & SearchingMask) == 0 && state >= ParkedOne && IsWakeDue(state))
        {
            WakeOne();
        }
    }

    public override bool WaitForWork(int worker, int millisecondsTimeout)
    {
        Slot slot = _slots[worker];
        if (!slot.IsSearching)
        {
            slot.IsSearching = true;
            Interlocked.Add(ref _state.Value, SearchingOne);
        }

        // Search: while we spin, producers see a searcher and skip the system call of a wake. Every eighth look
        // yields the core instead of spinning: when more threads are runnable than there are cores (a producer
        // outside the pool, a sibling preempted mid-item), the thread that has work runs instead of a searcher
        // that has none; with nobody waiting for the core, the yield returns at once. A searcher that yielded
        // still counts as searching: items queued meanwhile wait for it to run again, as a worker woken for them
        // would wait for a core that busy. The liveness argument is unchanged: a searcher parks only through the
        // announce and re-check below.
        // A work-stealing queue's slots are left out of these looks and of the re-check (see the remarks, "Slots").
        for (int i = 0; i < _spinIterations; i++)
        {
            if (!IsEmptyButSlots || IsStopping)
            {
                return true;
            }

            if ((i & YieldMask) == YieldMask)
            {
                Thread.Yield();
            }
            else
            {
                Thread.SpinWait(20);
            }
        }

        // Announce: push ourselves and move from searching to parked in one interlocked add (a full fence).
        using (ThreadInterrupts.Hold(_lock))
        {
            _parkedStack[_parkedTop++] = worker;
            Interlocked.Add(ref _state.Value, ParkedOne - SearchingOne);
        }

        // Re-check after announcing: this is the read that pairs with the producer's publish + fence. An item
        // published before our announcement is seen here; after it, its producer sees us parked.
        if (!IsEmptyButSlots || IsStopping)
        {
            if (TryUnannounce(worker, stayAsSearcher: true))
            {
                return true; // still counted as searching, IsSearching still true
            }

            // A waker popped us and already counted us as searching; its Unpark is on its way (it is issued
            // right after the waker leaves the lock). Take it now so that our next Park is not spurious.
        }
        else if (_stealingQueue is { } stealing)
        {
            switch (Watch(slot, worker, stealing, millisecondsTimeout))
            {
                case WatchEnd.Search:
                    return true;
                case WatchEnd.Leave:
                    slot.IsSearching = false;
                    return false;
            }
        }

        // Whoever unparks us has moved us from parked to searching.
        int keep = CurrentWorker.QueueKeepMillisecondsAtPark(ref millisecondsTimeout);
        if (keep >= 0)
        {
            // The group queues this worker kept (DeferredQueueDrops) stay while it is parked a short while, and go once
            // that passes, so an idle pool keeps none. Dropping an empty queue queues nothing and wakes nobody, so it
            // needs nothing of the announce; a wake that comes during the drop leaves its permit for the park below.
            if (keep > 0 && slot.Parker.Park(keep))
            {
                return true;
            }

            CurrentWorker.DropKeptQueues();
        }

        if (millisecondsTimeout < 0)
        {
            slot.Parker.Park();
            return true;
        }

        if (slot.Parker.Park(millisecondsTimeout))
        {
            return true;
        }

        // A spare's wait timed out. Still on the stack: leave it, counted neither parked nor searching, and exit.
        // Popped meanwhile: a waker counted us as searching and its Unpark is on its way; take it and go on.
        if (TryUnannounce(worker, stayAsSearcher: false))
        {
            slot.IsSearching = false;
            return false;
        }

        slot.Parker.Park();
        return true;
    }

    // Announced parked, after a re-check that found nothing it may take: watches the workers' slots (see the remarks,
    // "Slots"). Search: woken, or an entry sat in its slot a whole watch (the worker loop's steal then takes it unless its
    // owner does within the grace). Park, as usual: the slots were quiet a while and the watch is over, or a waker popped
    // this worker (its Unpark is on its way: the park takes it at once). Leave: a spare watched for its whole idle time;
    // it is off the stack and counted neither parked nor searching.
    private WatchEnd Watch(Slot slot, int worker, WorkStealingWorkQueue stealing, int millisecondsTimeout)
    {
        stealing.ReadSlotVersions(ref slot.SlotVersions);
        if (!TrySetWatching(slot, worker, watching: true))
        {
            return WatchEnd.Park;
        }

        int quietLooks = 0;
        long watched = 0;
        bool spent = false;
        while (true)
        {
            if (millisecondsTimeout >= 0 && (watched += WatchMilliseconds) > millisecondsTimeout)
            {
                spent = true;
                break;
            }

            int forever = Timeout.Infinite;
            if (CurrentWorker.QueueKeepMillisecondsAtPark(ref forever) == 0)
            {
                CurrentWorker.DropKeptQueues(); // the group queues kept go on time, watching or not (DeferredQueueDrops)
            }

            if (slot.Parker.ParkOnce(WatchMilliseconds))
            {
                return WatchEnd.Search; // woken: the waker counted us as searching and not watching
            }

            if (stealing.AnySlotEntryUnmoved(slot.SlotVersions))
            {
                // Its owner neither took that entry nor put another for a whole watch: blocked, or in one long item.
                return TryUnannounce(worker, stayAsSearcher: true) ? WatchEnd.Search : WatchEnd.Park;
            }

            // Entries that come and go (an owner running items through its slot) keep the watch on: that owner may yet
            // block with one there. Slots quiet for a while end it.
            if (stealing.ReadSlotVersions(ref slot.SlotVersions))
            {
                quietLooks = 0;
            }
            else if (++quietLooks == WatchQuietLooks)
            {
                break;
            }
        }

        // Stop watching (an interlocked change of the state, a full fence), then look again: pairs with a producer that
        // pushed onto its slot after our last look and then read the state (OnWorkQueued). Either it saw us watching, and
        // this look sees its entry, or it sees nobody watching and wakes a parked worker.
        if (!TrySetWatching(slot, worker, watching: false))
        {
            return WatchEnd.Park;
        }

        if (!spent)
        {
            return (!Queue.IsEmpty || IsStopping) && TryUnannounce(worker, stayAsSearcher: true) ? WatchEnd.Search : WatchEnd.Park;
        }

        // A spare idle for its whole timeout: it stays only for work it may take now. Otherwise it leaves, and hands the
        // watch to another parked worker if a slot holds an entry (the look after its own unmark, as above); with none
        // parked, the others are all busy, and an owner that blocks is the starvation guard's to cover.
        if (!IsEmptyButSlots || IsStopping)
        {
            return TryUnannounce(worker, stayAsSearcher: true) ? WatchEnd.Search : WatchEnd.Park;
        }

        if (!TryUnannounce(worker, stayAsSearcher: false))
        {
            return WatchEnd.Park;
        }

        if (stealing.AnySlotHeld)
        {
            WakeOne();
        }

        return WatchEnd.Leave;
    }

    // Under _lock: marks this parked worker watching or not, unless a waker popped it (false then: the waker counted it
    // searching and not watching).
    private bool TrySetWatching(Slot slot, int worker, bool watching)
    {
        using (ThreadInterrupts.Hold(_lock))
        {
            if (StackIndexOf(worker) < 0)
            {
                return false;
            }

            Debug.Assert(slot.IsWatching != watching, "a worker starts and stops watching once each");
            slot.IsWatching = watching;
            Interlocked.Add(ref _state.Value, watching ? WatchingOne : -WatchingOne);
            return true;
        }
    }

    protected override void WakeAll()
    {
        int[] woken;
        using (ThreadInterrupts.Hold(_lock))
        {
            woken = _parkedStack[.._parkedTop];
            _parkedTop = 0;
            long watching = 0;
            foreach (int worker in woken)
            {
                watching += StopWatching(_slots[worker]);
            }

            Interlocked.Add(ref _state.Value, (woken.Length * (SearchingOne - ParkedOne)) - (watching * WatchingOne));
        }

        // A worker that parks later takes _lock after us, so its re-check sees IsStopping (set before Stop
        // called us) and it does not block.
        foreach (int worker in woken)
        {
            _slots[worker].Parker.Unpark();
        }
    }

    public override void OnWorkerExiting(int worker)
    {
        // A worker that exits while counted as searching (on shutdown) stops counting; a retiring spare already
        // left both counts in WaitForWork.
        Slot slot = _slots[worker];
        if (slot.IsSearching)
        {
            slot.IsSearching = false;
            Interlocked.Add(ref _state.Value, -SearchingOne);
        }
    }

    private bool WakeOne()
    {
        int worker;
        using (ThreadInterrupts.Hold(_lock))
        {
            // Re-read under the lock: a searcher that appeared since the caller's read will see the item.
            if ((_state.Value & SearchingMask) != 0 || _parkedTop == 0)
            {
                return false;
            }

            worker = _parkedStack[--_parkedTop];
            Interlocked.Add(ref _state.Value, SearchingOne - ParkedOne - (StopWatching(_slots[worker]) * WatchingOne));
        }

        _slots[worker].Parker.Unpark();
        return true;
    }

    private bool TryUnannounce(int worker, bool stayAsSearcher)
    {
        using (ThreadInterrupts.Hold(_lock))
        {
            int index = StackIndexOf(worker);
            if (index < 0)
            {
                return false;
            }

            Array.Copy(_parkedStack, index + 1, _parkedStack, index, _parkedTop - index - 1);
            _parkedTop--;
            Interlocked.Add(ref _state.Value, (stayAsSearcher ? SearchingOne : 0) - ParkedOne - (StopWatching(_slots[worker]) * WatchingOne));
            return true;
        }
    }

    // Under _lock: where `worker` is on the parked stack, or -1 if a waker popped it (or it never parked).
    private int StackIndexOf(int worker) =>
        _parkedTop == 0 ? -1 : Array.LastIndexOf(_parkedStack, worker, _parkedTop - 1, _parkedTop);

    // Under _lock, for a worker leaving the parked stack: 1 if it was watching (and no longer is), else 0.
    private static long StopWatching(Slot slot)
    {
        if (!slot.IsWatching)
        {
            return 0;
        }

        slot.IsWatching = false;
        return 1;
    }

    // Under _lock (or in the constructor): at least `workers` slots, doubling; the stack grows with them.
    private void Grow(int workers)
    {
        Slot[] slots = _slots;
        if (workers <= slots.Length)
        {
            return;
        }

        int length = Math.Max(workers, 2 * slots.Length);
        var grown = new Slot[length];
        slots.CopyTo(grown, 0);
        for (int i = slots.Length; i < length; i++)
        {
            grown[i] = new Slot();
        }

        Array.Resize(ref _parkedStack, length);
        _slots = grown;
    }

    private enum WatchEnd
    {
        Search,
        Park,
        Leave,
    }

    private sealed class Slot
    {
        public readonly Parker Parker = new();
        public bool IsSearching;
        public bool IsWatching;            // guarded by _lock: counted in the state's watching count
        public long[] SlotVersions = [];   // its worker's, while it watches: the slots' versions at its last look
    }
}
