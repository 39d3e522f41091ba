using SlimPool.Workers;

namespace SlimPool.Scheduling;

/// <summary>
/// Back-pressure for <see cref="SlimThreadPoolOptions.BoundedCapacity"/>: a count of free queue slots that
/// producers take and workers give back, with a FIFO line of producers waiting for one.
/// </summary>
/// <remarks>
/// <para>The fast paths take no lock: <see cref="TryAcquire()"/> is a compare-and-swap on the count,
/// <see cref="Release()"/> one interlocked increment and one read of the waiter count.</para>
/// <para>No lost wake-up: a waiter increments <c>_waiterCount</c> (a full fence) and then tries the count once
/// more; a releaser increments the count (a full fence) and then reads <c>_waiterCount</c>. Of two threads that
/// each write one location and then read the other's, at least one sees the other's write: either the waiter
/// takes the freed slot itself, or the releaser sees the waiter and hands the slot over under the lock (where
/// the waiter's registration is already complete, since it registers under the same lock).</para>
/// <para>Forced acquisitions (continuations and tasks, which must never wait) may take the count below zero;
/// it then takes as many releases before anyone may take a slot again.</para>
/// </remarks>
internal sealed class CapacityGate
{
    // How often a cancellable gatherer waiting for its turn looks at its token.
    private const int GatherPollMilliseconds = 10;

    private readonly Lock _lock = new();
    private readonly Lock _gatherLock = new(); // one AcquireBlocking(count) at a time gathers its slots
    // Producers waiting for a slot, oldest first. Guarded by _lock.
    private readonly LinkedList<TaskCompletionSource<bool>> _waiters = new();
    private PaddedInt _free;
    // The number of entries in _waiters; written under _lock with Interlocked, read without it by Release.
    private int _waiterCount;
    // Guarded by _lock: once set, every waiter and every later AcquireAsync gets false.
    private bool _closed;

    public CapacityGate(int capacity)
    {
        Capacity = capacity;
        _free.Value = capacity;
    }

    /// <summary>The number of slots (<see cref="SlimThreadPoolOptions.BoundedCapacity"/>).</summary>
    public int Capacity { get; }

    /// <summary>The number of free slots now (negative after forced acquisitions); for tests and metrics.</summary>
    public int Free => Volatile.Read(ref _free.Value);

    /// <summary>Takes a slot if one is free.</summary>
    public bool TryAcquire() => TryAcquire(1);

    /// <summary>Takes <paramref name="count"/> slots at once if that many are free; none otherwise.</summary>
    public bool TryAcquire(int count)
    {
        int free = Volatile.Read(ref _free.Value);
        while (free >= count)
        {
            int seen = Interlocked.CompareExchange(ref _free.Value, free - count, free);
            if (seen == free)
            {
                return true;
            }

            free = seen;
        }

        return false;
    }

    /// <summary>
    /// Takes <paramref name="count"/> slots (at most the capacity), blocking the caller until it has them all: true then;
    /// false, holding none, if the gate was closed first, or <paramref name="cancellationToken"/> was cancelled (a group
    /// that shut down while its producer waited).
    /// </summary>
    /// <remarks>
    /// Slots held for items not yet queued come back from nobody, so two callers each holding part of what they need
    /// could wait for each other for ever. One caller at a time gathers (<c>_gatherLock</c>): every slot it lacks is
    /// then free or held by a queued item, which a worker takes and releases, and single-slot producers never hold a
    /// slot while they wait. So it gets its slots, and the next gatherer goes on. One slot needs no gathering: it waits
    /// in the FIFO line as <see cref="AcquireAsync"/> does. A cancellable caller waits for its turn to gather in steps,
    /// looking at its token between them.
    /// </remarks>
    public bool AcquireBlocking(int count, CancellationToken cancellationToken = default)
    {
        if (TryAcquire(count))
        {
            return true;
        }

        try
        {
            if (count == 1)
            {
                return AcquireOneBlocking(cancellationToken);
            }

            if (!EnterGathering(cancellationToken))
            {
                return false;
            }

            int held = 0;
            try
            {
                while (held < count)
                {
                    if (TryAcquire() || AcquireOneBlocking(cancellationToken))
                    {
                        held++;
                        continue;
                    }

                    break; // closed
                }
            }
            catch (OperationCanceledException) when (cancellationToken.IsCancellationRequested)
            {
                // Fall through: the slots gathered so far go back.
            }
            catch (ThreadInterruptedException)
            {
                Release(held); // the interrupt is the caller's; the slots gathered so far are nobody's
                throw;
            }
            finally
            {
                _gatherLock.Exit();
            }

            if (held == count)
            {
                return true;
            }

            Release(held);
            return false;
        }
        catch (OperationCanceledException) when (cancellationToken.IsCancellationRequested)
        {
            return false; // the waiter was removed from the line holding no slot (Cancel)
        }
    }

    /// <summary>
    /// Takes a slot, blocking the caller in line until it has one: true then; false if the gate was closed first; the
    /// token ends the wait with <see cref="OperationCanceledException"/>, holding no slot. An interrupt of the waiting
    /// thread reaches the caller only once it has left the line holding no slot: left there, the waiter would later be
    /// handed a slot that nobody gives back, and the pool would lose a place for good.
    /// </summary>
    public bool AcquireOneBlocking(CancellationToken cancellationToken)
    {
        ValueTask<bool> pending = AcquireAsync(cancellationToken);
        if (pending.IsCompleted)
        {
            return pending.GetAwaiter().GetResult();
        }

        Task<bool> waiter = pending.AsTask();
        try
        {
            return waiter.GetAwaiter().GetResult();
        }
        catch (ThreadInterruptedException)
        {
            LeaveLine(waiter);
            throw;
        }
    }

    // An interrupted waiter leaves the line. Under the lock it is either still in line (removed: it never had a slot) or
    // already out of it: handed a slot (HandOver completes it under the lock, so its result is there now), failed by
    // Close, or cancelled (no slot either way). A slot handed over goes back.
    private void LeaveLine(Task<bool> waiter)
    {
        using (ThreadInterrupts.Hold(_lock))
        {
            for (LinkedListNode<TaskCompletionSource<bool>>? node = _waiters.First; node is not null; node = node.Next)
            {
                if (node.Value.Task == waiter)
                {
                    _waiters.Remove(node);
                    Interlocked.Decrement(ref _waiterCount);
                    return;
                }
            }
        }

        if (waiter.IsCompletedSuccessfully && waiter.Result)
        {
            Release();
        }
    }

    // The gatherers' lock; a cancellable caller waits for it in steps and gives up once its token is cancelled.
    private bool EnterGathering(CancellationToken cancellationToken)
    {
        if (!cancellationToken.CanBeCanceled)
        {
            _gatherLock.Enter();
            return true;
        }

        while (!_gatherLock.TryEnter(GatherPollMilliseconds))
        {
            if (cancellationToken.IsCancellationRequested)
            {
                return false;
            }
        }

        return true;
    }

    /// <summary>Takes <paramref name="count"/> slots whether or not they are free (see <see cref="ForceAcquire()"/>).</summary>
    public void ForceAcquire(int count) => Interlocked.Add(ref _free.Value, -count);

    /// <summary>Takes a slot whether or not one is free (for items that must never wait).</summary>
    public void ForceAcquire() => Interlocked.Decrement(ref _free.Value);

    /// <summary>Gives a slot back (a worker took an item off the queue) and hands it to a waiter if there is one.</summary>
    public void Release() => Release(1);

    /// <summary>Gives <paramref name="count"/> slots back at once, handing them to waiters as <see cref="Release()"/> does.</summary>
    public void Release(int count)
    {
        Interlocked.Add(ref _free.Value, count); // full fence before the read below: see the remarks
        if (Volatile.Read(ref _waiterCount) != 0)
        {
            HandOver();
        }
    }

    /// <summary>
    /// Takes a slot, waiting in line for one if none is free: true once it has the slot, false if the gate was
    /// closed first. The token cancels the wait (the task ends cancelled and holds no slot).
    /// </summary>
    public ValueTask<bool> AcquireAsync(CancellationToken cancellationToken)
    {
        if (TryAcquire())
        {
            return new ValueTask<bool>(true);
        }

        if (cancellationToken.IsCancellationRequested)
        {
            return ValueTask.FromCanceled<bool>(cancellationToken);
        }

        var waiter = new TaskCompletionSource<bool>(TaskCreationOptions.RunContinuationsAsynchronously);
        LinkedListNode<TaskCompletionSource<bool>> node;
        using (ThreadInterrupts.Hold(_lock))
        {
            if (_closed)
            {
                return new ValueTask<bool>(false);
            }

            node = _waiters.AddLast(waiter);
            Interlocked.Increment(ref _waiterCount); // full fence before the re-try: see the remarks
            if (TryAcquire())
            {
                _waiters.Remove(node);
                Interlocked.Decrement(ref _waiterCount);
                return new ValueTask<bool>(true);
            }
        }

        if (cancellationToken.CanBeCanceled)
        {
            CancellationTokenRegistration registration = cancellationToken.UnsafeRegister(
                static (s, token) =>
                {
                    var (gate, waiting) = ((CapacityGate, LinkedListNode<TaskCompletionSource<bool>>))s!;
                    gate.Cancel(waiting, token);
                },
                (this, node));
            _ = waiter.Task.ContinueWith(
                static (_, r) => ((CancellationTokenRegistration)r!).Dispose(),
                registration,
                CancellationToken.None,
                TaskContinuationOptions.ExecuteSynchronously,
                TaskScheduler.Default);
        }

        return new ValueTask<bool>(waiter.Task);
    }

    /// <summary>Fails every waiter and every later <see cref="AcquireAsync"/> (the pool shut down).</summary>
    public void Close()
    {
        using ThreadInterrupts.PendingScope heldOff = ThreadInterrupts.HoldOffPending(); // waiters may block on their tasks
        using (ThreadInterrupts.Hold(_lock))
        {
            _closed = true;
            foreach (TaskCompletionSource<bool> waiter in _waiters)
            {
                waiter.TrySetResult(false);
            }

            _waiters.Clear();
            Volatile.Write(ref _waiterCount, 0);
        }
    }

    // On a worker, after an item that may have left an interrupt pending (a group's turn takes its next item): the
    // completion wakes a producer blocked on its task, with that interrupt held off (ThreadInterrupts.HoldOffPending).
    private void HandOver()
    {
        using ThreadInterrupts.PendingScope heldOff = ThreadInterrupts.HoldOffPending();
        using (ThreadInterrupts.Hold(_lock))
        {
            // A waiter whose task is already cancelled was removed by Cancel under this lock, so every waiter
            // here takes its slot; the loop stops when slots or waiters run out.
            while (_waiters.First is { } first && TryAcquire())
            {
                _waiters.RemoveFirst();
                Interlocked.Decrement(ref _waiterCount);
                first.Value.TrySetResult(true);
            }
        }
    }

    private void Cancel(LinkedListNode<TaskCompletionSource<bool>> node, CancellationToken token)
    {
        using (ThreadInterrupts.Hold(_lock))
        {
            if (node.List is null)
            {
                return; // already handed a slot (or failed by Close): that result stands
            }

            _waiters.Remove(node);
            Interlocked.Decrement(ref _waiterCount);
        }

        using ThreadInterrupts.PendingScope heldOff = ThreadInterrupts.HoldOffPending();
        node.Value.TrySetCanceled(token);
    }
}
