namespace SlimPool.Workers;

/// <summary>
/// The pool's worker threads and what it takes to keep enough of them unblocked: the permanent workers, spare
/// workers that come and go (started for blocking scopes and by the starvation guard, retired when idle), the live
/// and blocked counts, and each slot's <see cref="WorkerState"/>.
/// </summary>
/// <remarks>
/// <para><b>Slots.</b> Slots 0..WorkerCount-1 hold the permanent workers; higher slots hold spares while they live.
/// The tables grow (doubling, up to the ceiling) only when a spare needs a slot beyond them, so a high ceiling costs
/// nothing until it is used. <c>_threads</c> and <c>_states</c> are replaced, never written in place once published,
/// except for <c>_threads[i]</c>, which changes only under <c>_lock</c>. A worker keeps its own
/// <see cref="WorkerState"/> reference, so a table copy never loses its writes.</para>
/// <para><b>Capacity.</b> The pool wants <c>live - blocked ≥ WorkerCount</c>. A worker entering a blocking scope
/// increments <c>_blocked</c> (an interlocked add: a full fence) and then reads <c>_live</c>; a spare retiring
/// decrements <c>_live</c> (a full fence) and then reads <c>_blocked</c>. Either the blocker sees the spare gone and
/// starts another, or the spare sees the blocker and stays (store-buffer pattern; both may act, which only leaves
/// one spare too many for a while).</para>
/// <para><b>Interrupts.</b> <c>_lock</c> is held through <see cref="ThreadInterrupts.Hold(Lock)"/>: a shutdown begun on a
/// thread with an interrupt pending (a producer's, or one an item left on a worker) tells this set under it after the
/// shutdown's flag is set for good, and a throw between the two left the workers never told to stop and every later
/// Dispose waiting for ever.</para>
/// </remarks>
internal sealed class WorkerSet
{
    private readonly Lock _lock = new();
    private readonly Func<int, Thread> _newThread;
    private readonly int _workerCount;
    private readonly int _maxWorkers;
    private volatile Thread?[] _threads;      // slot -> its thread while it lives; entries written under _lock
    private volatile WorkerState?[] _states;  // slot -> its state, created with the slot's first thread
    private bool _closed;                     // under _lock: once set, only a drain's spares start (see Close)
    private volatile bool _abandoning;        // set under _lock by Abandon: no spare starts at all
    private bool _leaving;                    // under _lock: a drain's workers are leaving (MarkLeaving): no spare starts
    private readonly ExitBarrier _exits;
    private readonly Action? _onAllLeft;       // the shutdown's, when a failed start took the live count to 0
    private int _live;
    private int _blocked;

    /// <param name="workerCount">Permanent workers.</param>
    /// <param name="maxWorkers">The ceiling on threads, spares included.</param>
    /// <param name="newThread">Creates (does not start) the thread for a slot.</param>
    /// <param name="queue">The pool's queue, which a drain's workers look at before they leave (<see cref="ExitBarrier"/>).</param>
    /// <param name="onAllLeft">Called when a spare whose thread failed to start was the last live worker (the shutdown's
    /// signal that the workers are gone, which an exiting worker gives otherwise).</param>
    /// <param name="lanes">Reads the pool's priority lanes (null until its first High or Low item), which a drain's
    /// workers look at with the queue.</param>
    public WorkerSet(int workerCount, int maxWorkers, Func<int, Thread> newThread, Queues.IWorkQueue queue, Action? onAllLeft = null, Func<Scheduling.PriorityLanes?>? lanes = null)
    {
        _onAllLeft = onAllLeft;
        _exits = new ExitBarrier(this, queue, lanes);
        _workerCount = workerCount;
        _maxWorkers = maxWorkers;
        _newThread = newThread;
        int capacity = Math.Min(maxWorkers, Math.Max(4, 2 * workerCount));
        _threads = new Thread?[capacity];
        _states = new WorkerState?[capacity];
    }

    /// <summary>The permanent workers.</summary>
    public int WorkerCount => _workerCount;

    /// <summary>Worker threads alive now, spares included.</summary>
    public int LiveCount => Volatile.Read(ref _live);

    /// <summary>Workers inside a blocking scope now.</summary>
    public int BlockedCount => Volatile.Read(ref _blocked);

    /// <summary>Whether the pool's abandon has begun (<see cref="Abandon"/>).</summary>
    public bool IsAbandoning => _abandoning;

    /// <summary>How the workers leave a drain (<see cref="ExitBarrier"/>).</summary>
    public ExitBarrier Exits => _exits;

    /// <summary>The pool's abandon began: no spare starts from now on, and the workers waiting to leave a drain leave.</summary>
    public void Abandon()
    {
        using (ThreadInterrupts.Hold(_lock))
        {
            _abandoning = true;
        }

        _exits.WakeAll();
    }

    /// <summary>
    /// A drain's workers are all idle with nothing queued and leave (<see cref="ExitBarrier"/>): from now on the starvation
    /// guard starts no spare. Under the lock, so a spare the guard starts is counted live before any worker leaves.
    /// </summary>
    public void MarkLeaving()
    {
        using (ThreadInterrupts.Hold(_lock))
        {
            _leaving = true;
        }
    }

    /// <summary>Creates and starts the permanent workers; the constructor's caller calls it once.</summary>
    public void StartPermanentWorkers()
    {
        var started = new Thread[_workerCount];
        using (ThreadInterrupts.Hold(_lock))
        {
            for (int i = 0; i < _workerCount; i++)
            {
                started[i] = Occupy(i);
            }
        }

        for (int i = 0; i < _workerCount; i++)
        {
            started[i].UnsafeStart(i); // no ExecutionContext leaks from the pool's creator into its workers
        }
    }

    /// <summary>How many slots the tables hold now (they grow; a slot's index never changes).</summary>
    public int SlotCount => _states.Length;

    /// <summary>The state of slot <paramref name="index"/> while a thread occupies it, else null (a free or unmade slot).</summary>
    public WorkerState? Occupant(int index)
    {
        Thread?[] threads = _threads;
        WorkerState?[] states = _states;
        return index < threads.Length && index < states.Length && Volatile.Read(ref threads[index]) is not null ? states[index] : null;
    }

    /// <summary>The state of slot <paramref name="index"/>, for the worker in it.</summary>
    public WorkerState StateOf(int index) => _states[index]!;

    /// <summary>The sum of every slot's completed items.</summary>
    public long Progress()
    {
        long sum = 0;
        foreach (WorkerState? state in _states)
        {
            sum += state?.Completed ?? 0;
        }

        return sum;
    }

    /// <summary>
    /// Marks how often each slot's workers have gone idle so far, for <see cref="AllBusySince"/>.
    /// <paramref name="marks"/> grows to the slot count (the caller keeps it, so a mark allocates only when the
    /// tables grew). Returns the sum of every slot's completed items, as <see cref="Progress"/>.
    /// </summary>
    public long Mark(ref long[] marks)
    {
        WorkerState?[] states = _states;
        if (marks.Length < states.Length)
        {
            marks = new long[states.Length];
        }

        long sum = 0;
        for (int i = 0; i < marks.Length; i++)
        {
            WorkerState? state = i < states.Length ? states[i] : null;
            sum += state?.Completed ?? 0;
            marks[i] = state?.Idled ?? 0;
        }

        return sum;
    }

    /// <summary>
    /// Whether every worker alive now is busy and none has gone idle since <paramref name="marks"/> (a spare that
    /// started since counts from its start): the pool had no worker to spare for the whole time.
    /// </summary>
    public bool AllBusySince(long[] marks)
    {
        Thread?[] threads = _threads;
        WorkerState?[] states = _states;
        for (int i = 0; i < threads.Length && i < states.Length; i++)
        {
            if (threads[i] is null || states[i] is not WorkerState state)
            {
                continue; // a free spare slot
            }

            if (state.Busy == 0 || (i < marks.Length && state.Idled != marks[i]))
            {
                return false;
            }
        }

        return true;
    }

    /// <summary>
    /// The sum of every slot's busy-flag changes (<see cref="WorkerState.BusyChanges"/>) if no slot reads busy, else −1.
    /// Each slot's count only grows (a slot keeps its state for every thread that occupies it) and is odd while its
    /// worker is busy, so two equal sums, each read with every slot even, mean that no slot changed between its two
    /// reads: each worker stayed idle from the first read of its slot to the second.
    /// </summary>
    public long BusyChangesIfNoneBusy()
    {
        long sum = 0;
        foreach (WorkerState? state in _states)
        {
            if (state is null)
            {
                continue;
            }

            long changes = state.BusyChanges;
            if ((changes & 1) != 0)
            {
                return -1;
            }

            sum += changes;
        }

        return sum;
    }

    /// <summary>Workers whose busy flag is up.</summary>
    public int BusyCount()
    {
        int busy = 0;
        foreach (WorkerState? state in _states)
        {
            busy += state?.Busy ?? 0;
        }

        return busy;
    }

    /// <summary>
    /// The starvation guard's spare: starts one unless at the ceiling, an abandon began, or a drain's workers are leaving.
    /// The guard keeps watching through a drain, so an item that waits, without a blocking scope, for one queued behind it
    /// gets a spare there as it would before (the built-in pool injects a thread).
    /// </summary>
    public bool TryStartSpare() => TryStartSpare(whileClosed: true);

    private bool TryStartSpare(bool whileClosed)
    {
        Thread thread;
        int index;
        using (ThreadInterrupts.Hold(_lock))
        {
            if ((_closed && (!whileClosed || _leaving)) || _abandoning || (index = FreeSpareSlot()) < 0)
            {
                return false;
            }

            thread = Occupy(index);
        }

        try
        {
            thread.UnsafeStart(index);
            return true;
        }
        catch (Exception)
        {
            // The thread could not start (no memory for its stack, a container's pids or threads limit: an
            // OutOfMemoryException, whatever the cause). The slot is given back at once, as by a spare that retired
            // before its first look, so neither the live count, a drain's exit barrier nor the guard's clocks wait on
            // a thread that will never run; the pool goes on with the threads it has, and the caller (the guard, a
            // blocking scope) may ask again later.
            using (ThreadInterrupts.Hold(_lock))
            {
                _threads[index] = null;
            }

            int live = Interlocked.Decrement(ref _live);
            if (IsClosed)
            {
                _exits.OnWorkerRetired(); // after the decrement, a full fence, as TryRetire's
            }

            if (live == 0)
            {
                _onAllLeft?.Invoke();
            }

            return false;
        }
    }

    /// <summary>
    /// A worker is about to block: counts it, and starts a spare if fewer than WorkerCount stay unblocked; during a drain
    /// too when <paramref name="inItem"/> (the scope is an item's, not a thread hook's), never once an abandon began.
    /// </summary>
    /// <remarks>
    /// A drain must run what a blocked item waits for (a Send's callback, a task it queued), and that may need another
    /// worker (a pool of one); so an item's blocking scope starts its spare after <see cref="Close"/> as well. That keeps
    /// Close's promise: the caller is a live worker inside an item, so the live count cannot reach zero (and the
    /// shutdown's wait for the workers end, and <see cref="Join"/> take its copy of the threads) before the spare is
    /// counted live under the lock. A drain's workers leave together once none runs an item (<see cref="ExitBarrier"/>),
    /// so the spare stays while the item blocks, and its later scopes find it there.
    /// </remarks>
    public void OnBlocked(bool inItem)
    {
        // Tops the unblocked workers up to WorkerCount: one spare as a rule, more where an earlier scope's spare could not
        // start (a thread limit) and left the pool short; stops at the first start refused (an abandon, the ceiling) or
        // failed.
        Interlocked.Increment(ref _blocked); // full fence before reading _live (pairs with TryRetire)
        TopUp(whileClosed: inItem);
    }

    /// <summary>A worker's blocking ended.</summary>
    public void OnUnblocked() => Interlocked.Decrement(ref _blocked);

    /// <summary>
    /// A spare with nothing to do asks to leave: it may, unless leaving would drop the unblocked workers below
    /// WorkerCount (a blocked worker still needs it covered), which holds during a drain too (the blocked item may still
    /// queue what it waits for, and the spare may be the only one to run it: ExitBarrier.pml, BROKEN_RETIRECLOSED); only
    /// an abandon lets every spare go. On success the spare is no longer counted live; refused, it goes round its loop,
    /// which at a shutdown takes it to the exit barrier.
    /// </summary>
    /// <param name="lastOut">Whether it was the last live worker (the pool is shutting down).</param>
    public bool TryRetire(out bool lastOut)
    {
        int live = Interlocked.Decrement(ref _live); // full fence before reading _blocked (pairs with OnBlocked)
        if (live - Volatile.Read(ref _blocked) < _workerCount && !_abandoning)
        {
            Interlocked.Increment(ref _live);
            lastOut = false;
            return false;
        }

        lastOut = live == 0;
        if (IsClosed)
        {
            _exits.OnWorkerRetired(); // after the decrement, a full fence: see ExitBarrier's remarks
        }

        return true;
    }

    /// <summary>A worker that did not retire is exiting (shutdown); true if it was the last.</summary>
    public bool OnExited() => Interlocked.Decrement(ref _live) == 0;

    /// <summary>
    /// Slot <paramref name="index"/>'s retired spare has left its loop: the slot may take the next spare, and takes one
    /// at once where the unblocked workers are short of WorkerCount (a scope opened while this slot, the last under
    /// the ceiling, still held the exiting thread, and was refused its spare; nothing else would ask again with the
    /// guard off). Never once the pool is closed: a drain's scopes ask for their own.
    /// </summary>
    public void Release(int index)
    {
        if (index < _workerCount)
        {
            return;
        }

        using (ThreadInterrupts.Hold(_lock))
        {
            _threads[index] = null;
        }

        // After the slot is free (the lock's release), read both counts as OnBlocked does: a scope that was refused
        // incremented _blocked before it looked, so this sees it; a scope that opens after this finds the slot free.
        TopUp(whileClosed: false);
    }

    // Starts spares while fewer than WorkerCount workers are unblocked (both counts read after the caller's full fence);
    // stops at the first start refused (closed, abandoning, the ceiling) or failed, so it never spins.
    private void TopUp(bool whileClosed)
    {
        while (Volatile.Read(ref _live) - Volatile.Read(ref _blocked) < _workerCount && TryStartSpare(whileClosed))
        {
        }
    }

    /// <summary>
    /// Shutdown: from now on a spare starts only for a drain's items (a blocked item's, <see cref="OnBlocked"/>, or the
    /// guard's, <see cref="TryStartSpare()"/>), until its workers leave or an abandon begins. Idempotent.
    /// </summary>
    public void Close()
    {
        using (ThreadInterrupts.Hold(_lock))
        {
            _closed = true;
        }
    }

    private bool IsClosed
    {
        get
        {
            using (ThreadInterrupts.Hold(_lock))
            {
                return _closed;
            }
        }
    }

    /// <summary>Waits for every thread that has been started to end. Call after <see cref="Close"/>.</summary>
    public void Join()
    {
        Thread?[] threads;
        using (ThreadInterrupts.Hold(_lock))
        {
            threads = [.. _threads];
        }

        foreach (Thread? thread in threads)
        {
            thread?.Join();
        }
    }

    // Under _lock: the first free spare slot, growing the tables if every slot is taken and the ceiling allows.
    private int FreeSpareSlot()
    {
        Thread?[] threads = _threads;
        int free = Array.IndexOf(threads, null, _workerCount);
        if (free >= 0)
        {
            return free;
        }

        if (threads.Length >= _maxWorkers)
        {
            return -1;
        }

        int capacity = (int)Math.Min(_maxWorkers, 2L * threads.Length);
        var grownThreads = new Thread?[capacity];
        var grownStates = new WorkerState?[capacity];
        threads.CopyTo(grownThreads, 0);
        _states.CopyTo(grownStates, 0);
        _states = grownStates; // states first: a thread in a new slot finds its state (published before it starts)
        _threads = grownThreads;
        return threads.Length;
    }

    // Under _lock: puts a new thread in slot index (its state created on first use) and counts it live. The slot's
    // thread id goes back to 0 (starting) before the thread starts: a reused slot never shows the last occupant's id,
    // an exited thread whose clock cannot be read, to the starvation guard (WorkerClocks).
    private Thread Occupy(int index)
    {
        (_states[index] ??= new WorkerState()).OsThreadId = 0;
        Thread thread = _newThread(index);
        Volatile.Write(ref _threads[index], thread); // after the reset: a reader that sees the thread (Occupant) sees 0 or the new id
        Interlocked.Increment(ref _live);
        return thread;
    }
}
