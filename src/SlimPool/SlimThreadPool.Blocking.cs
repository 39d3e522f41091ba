using SlimPool.Diagnostics;
using SlimPool.Workers;

namespace SlimPool;

/// <summary>Blocking compensation: spare workers that cover for workers blocked in a blocking scope.</summary>
public sealed partial class SlimThreadPool
{
    /// <summary>The number of workers inside a blocking scope now.</summary>
    public int BlockedWorkerCount => _workerSet.BlockedCount;

    /// <summary>
    /// Tells the pool that the current worker is about to block (on I/O, a lock, a task): until the returned scope
    /// is disposed, the worker counts as blocked, and if fewer than <see cref="WorkerCount"/> workers remain
    /// unblocked, a spare worker starts at once (up to <see cref="SlimThreadPoolOptions.MaxWorkers"/>). Nested scopes
    /// count once. Off the pool it does nothing.
    /// </summary>
    /// <returns>
    /// The scope; disposing it ends the blocking. Dispose it on the thread that entered it: a second dispose, or one on
    /// another thread, does nothing, and a scope still open when its item returns ends then.
    /// </returns>
    public BlockingScope EnterBlocking()
    {
        if (!IsOwnWorker)
        {
            return default;
        }

        WorkerBlockingState state = CurrentWorker.Blocking!;
        if (SlimPoolEventSource.Log.IsEnabled())
        {
            SlimPoolEventSource.Log.BlockingScopeEnter(_name);
        }

        (int depth, long serial) = state.Enter();
        return new BlockingScope(state, depth, serial);
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
}
