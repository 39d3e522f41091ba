using SlimPool.Queues;
using SlimPool.Workers;

namespace SlimPool.Scheduling;

/// <summary>
/// The default idle wait: a worker that runs out of work searches (spins over the queue) for a short while,
/// then parks on its own <see cref="Parker"/>. Parked workers form a last-in, first-out stack.
/// </summary>
/// <remarks>
/// <para><b>State.</b> <c>_state</c> packs two counts: the number of <i>searching</i> workers (awake, not
/// running an item, looking at the queue) in its low 16 bits and the number of <i>parked</i> workers above.
/// Every change is an interlocked add (a full fence). The parked count changes only under <c>_lock</c>,
/// together with the stack, so the count and the stack agree whenever the lock is free.</para>
/// <para><b>Producer</b> (<see cref="OnWorkQueued"/>, after publish + full fence): wake one parked worker
/// only if nobody is searching. A searcher will find the item: either it looks at the queue again while
/// searching, or it announces itself parked, and that announcement is an interlocked write that is followed
/// by a re-check of the queue. Because the producer read the state before that write, the re-check sees the
/// producer's item (store-buffer pattern, see <see cref="IdleWait"/>). The woken worker is counted as
/// searching by its waker, under the lock, so concurrent producers do not wake a second one (no herd).</para>
/// <para><b>Chain.</b> When the last searcher takes an item and more items wait while workers are parked, it
/// wakes the next worker. That covers items whose producers skipped the wake because someone was
/// searching.</para>
/// <para><b>Model.</b> <c>SpinThenParkIdleWait.pml</c> beside this file is a Promela model of this class and of
/// the producer's side; <c>eng/check-models.sh</c> checks with Spin that no execution strands an item while
/// every worker is parked, that no wake is issued while a worker searches, and that wakes stay within twice the
/// pushes, and that removing the re-check in <see cref="WaitForWork"/> breaks the first property. Each step of
/// the model names the method it mirrors.</para>
/// <para><b>Ownership.</b> <c>Slot.IsSearching</c> is read and written only by its worker; a waker that moves
/// a worker from parked to searching changes only the shared count, and the worker sets its flag when it
/// returns from <see cref="Parker.Park()"/>.</para>
/// </remarks>
internal sealed class SpinThenParkIdleWait : IdleWait
{
    private const int SearchingOne = 1;
    private const int SearchingMask = 0xFFFF;
    private const int ParkedOne = 1 << 16;
    private const int YieldMask = 7; // looks 7, 15, 23, ... (i & YieldMask) == YieldMask yield the core

    private readonly Lock _lock = new();
    private readonly int _spinIterations;
    // Indexed by worker; grown (copied, the Slot objects kept) under _lock when a worker beyond it starts. Read
    // without the lock: a worker reads its own slot, a waker the slot of a worker it popped, which had started.
    private volatile Slot[] _slots;
    private int[] _parkedStack; // worker indexes, guarded by _lock; as long as _slots
    private int _parkedTop; // guarded by _lock
    private PaddedInt _state;

    public SpinThenParkIdleWait(IWorkQueue queue, int initialWorkers, int spinIterations)
        : base(queue)
    {
        _slots = [];
        _parkedStack = [];
        Grow(initialWorkers);
        _spinIterations = spinIterations;
    }

    public override void OnWorkerStarted(int worker)
    {
        if (worker >= _slots.Length)
        {
            lock (_lock)
            {
                Grow(worker + 1);
            }
        }

        // A worker starts out searching.
        _slots[worker].IsSearching = true;
        Interlocked.Add(ref _state.Value, SearchingOne);
    }

    public override void OnWorkQueued()
    {
        // Model: SpinThenParkIdleWait.pml, Producer. The queue check is only on the rare path where a wake is
        // due: a producer delayed between publishing and this read may find its item already taken (by a
        // worker a chain wake woke for it); waking someone then would only cost a system call. An empty queue
        // means no item is stranded, so skipping the wake cannot lose one.
        int state = Volatile.Read(ref _state.Value);
        if ((state & SearchingMask) == 0 && state >= ParkedOne && !Queue.IsEmpty)
        {
            WakeOne();
        }
    }

    public override void OnWorkTaken(int worker)
    {
        Slot slot = _slots[worker];
        if (!slot.IsSearching)
        {
            return;
        }

        slot.IsSearching = false;
        int state = Interlocked.Add(ref _state.Value, -SearchingOne);

        // Chain: we were the last searcher; if more work waits and someone is parked, pass the search on.
        // The interlocked add above is the fence that pairs with producers that skipped their wake while we
        // were searching: either they see no searcher now and wake someone, or we see their item here.
        if ((state & SearchingMask) == 0 && state >= ParkedOne && !Queue.IsEmpty)
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
        for (int i = 0; i < _spinIterations; i++)
        {
            if (!Queue.IsEmpty || IsStopping)
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
        lock (_lock)
        {
            _parkedStack[_parkedTop++] = worker;
            Interlocked.Add(ref _state.Value, ParkedOne - SearchingOne);
        }

        // Re-check after announcing: this is the read that pairs with the producer's publish + fence. An item
        // published before our announcement is seen here; after it, its producer sees us parked.
        if (!Queue.IsEmpty || IsStopping)
        {
            if (TryUnannounce(worker, stayAsSearcher: true))
            {
                return true; // still counted as searching, IsSearching still true
            }

            // A waker popped us and already counted us as searching; its Unpark is on its way (it is issued
            // right after the waker leaves the lock). Take it now so that our next Park is not spurious.
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

    protected override void WakeAll()
    {
        int[] woken;
        lock (_lock)
        {
            woken = _parkedStack[.._parkedTop];
            _parkedTop = 0;
            Interlocked.Add(ref _state.Value, woken.Length * (SearchingOne - ParkedOne));
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
        lock (_lock)
        {
            // Re-read under the lock: a searcher that appeared since the caller's read will see the item.
            if ((_state.Value & SearchingMask) != 0 || _parkedTop == 0)
            {
                return false;
            }

            worker = _parkedStack[--_parkedTop];
            Interlocked.Add(ref _state.Value, SearchingOne - ParkedOne);
        }

        _slots[worker].Parker.Unpark();
        return true;
    }

    private bool TryUnannounce(int worker, bool stayAsSearcher)
    {
        lock (_lock)
        {
            if (_parkedTop == 0)
            {
                return false;
            }

            int index = Array.LastIndexOf(_parkedStack, worker, _parkedTop - 1, _parkedTop);
            if (index < 0)
            {
                return false;
            }

            Array.Copy(_parkedStack, index + 1, _parkedStack, index, _parkedTop - index - 1);
            _parkedTop--;
            Interlocked.Add(ref _state.Value, (stayAsSearcher ? SearchingOne : 0) - ParkedOne);
            return true;
        }
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

    private sealed class Slot
    {
        public readonly Parker Parker = new();
        public bool IsSearching;
    }
}
