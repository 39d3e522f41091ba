using SlimPool.Scheduling;

namespace SlimPool;

/// <summary>Blocking compensation: spare workers that cover for workers blocked in a blocking scope.</summary>
public sealed partial class SlimThreadPool
{
    // How deep the current worker is in blocking scopes; only the outermost one counts.
    [ThreadStatic]
    private static int t_blockingDepth;

    private readonly PaddedLong[] _progress;
    private readonly StarvationGuard? _guard;
    private readonly int _spareIdleTimeoutMs;
    private int _blockedWorkers;

    /// <summary>The starvation guard, or null when it is off (tests only).</summary>
    internal StarvationGuard? GuardForTests => _guard;

    /// <summary>The number of workers inside a blocking scope now.</summary>
    public int BlockedWorkerCount => Volatile.Read(ref _blockedWorkers);

    /// <summary>
    /// Tells the pool that the current worker is about to block (on I/O, a lock, a task): until the returned scope
    /// is disposed, the worker counts as blocked, and if fewer than <see cref="WorkerCount"/> workers remain
    /// unblocked, an idle worker is woken or a spare worker starts at once (up to
    /// <see cref="SlimThreadPoolOptions.MaxWorkers"/>). Nested scopes count once. Off the pool it does nothing.
    /// Dispose the scope on the thread that entered it.
    /// </summary>
    /// <returns>The scope; disposing it ends the blocking.</returns>
    public BlockingScope EnterBlocking()
    {
        if (!IsOwnWorker)
        {
            return default;
        }

        if (t_blockingDepth++ == 0)
        {
            Interlocked.Increment(ref _blockedWorkers);
            Compensate();
        }

        return new BlockingScope(this);
    }

    /// <summary>Runs <paramref name="function"/>, which blocks, inside a blocking scope (see <see cref="EnterBlocking"/>).</summary>
    /// <typeparam name="T">The result type.</typeparam>
    /// <param name="function">The blocking work.</param>
    /// <returns>What <paramref name="function"/> returns.</returns>
    /// <exception cref="ArgumentNullException"><paramref name="function"/> is <see langword="null"/>.</exception>
    public T RunBlocking<T>(Func<T> function)
    {
        ArgumentNullException.ThrowIfNull(function);
        using BlockingScope scope = EnterBlocking();
        return function();
    }

    /// <summary>Runs <paramref name="action"/>, which blocks, inside a blocking scope (see <see cref="EnterBlocking"/>).</summary>
    /// <param name="action">The blocking work.</param>
    /// <exception cref="ArgumentNullException"><paramref name="action"/> is <see langword="null"/>.</exception>
    public void RunBlocking(Action action)
    {
        ArgumentNullException.ThrowIfNull(action);
        using BlockingScope scope = EnterBlocking();
        action();
    }

    internal void ExitBlocking()
    {
        if (--t_blockingDepth == 0)
        {
            Interlocked.Decrement(ref _blockedWorkers);
        }
    }

    /// <summary>The sum of every worker's completed items: the starvation guard's measure of progress.</summary>
    internal long Progress()
    {
        long sum = 0;
        for (int i = 0; i < _progress.Length; i++)
        {
            sum += Volatile.Read(ref _progress[i].Value);
        }

        return sum;
    }

    /// <summary>Starts a spare worker unless the pool is at <see cref="SlimThreadPoolOptions.MaxWorkers"/> or shutting down.</summary>
    internal bool TryStartSpare()
    {
        Thread thread;
        int index = -1;
        lock (_spareLock)
        {
            // BeginShutdown sets _shutdown under this lock: no spare starts after it, so Dispose's wait for the
            // live count to reach zero cannot be overtaken by a new worker.
            if (IsShutDown)
            {
                return false;
            }

            for (int i = _workerCount; i < _workers.Length; i++)
            {
                if (_workers[i] is null)
                {
                    index = i;
                    break;
                }
            }

            if (index < 0)
            {
                return false;
            }

            thread = NewWorkerThread(index);
            _workers[index] = thread;
            Interlocked.Increment(ref _liveWorkers);
        }

        thread.UnsafeStart(index);
        return true;
    }

    // Keep WorkerCount workers unblocked: an idle one if there is one, else a new spare.
    private void Compensate()
    {
        int unblocked = Volatile.Read(ref _liveWorkers) - Volatile.Read(ref _blockedWorkers);
        if (unblocked < _workerCount && !_idleWait.TryProvideWorker())
        {
            TryStartSpare();
        }
    }

    private Thread NewWorkerThread(int index) => new(WorkerMain)
    {
        IsBackground = _useBackgroundThreads,
        Priority = _threadPriority,
        Name = $"{_name} #{index + 1}",
    };

    // Dispose's last step off the pool: every worker (and the guard) has exited or is exiting; wait for the threads
    // themselves to end so that none is left running when Dispose returns.
    private void JoinThreads()
    {
        Thread?[] threads;
        lock (_spareLock)
        {
            threads = [.. _workers];
        }

        foreach (Thread? thread in threads)
        {
            thread?.Join();
        }

        _guard?.Join();
    }
}
