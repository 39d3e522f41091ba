namespace SlimPool.Lifecycle;

/// <summary>
/// The callers of a <c>WaitForIdleAsync</c> (a pool's or a group's): registered, then completed together once their owner
/// sees itself idle; free while nobody waits (one read of <see cref="Any"/> where the owner may have become idle).
/// </summary>
/// <remarks>
/// No missed completion, whatever the owner's idle test: <see cref="WaitAsync"/> counts the waiter (an interlocked
/// increment, a full fence) and only then runs the test itself; the owner makes the change that can end its busy state
/// with a full fence and only then reads <see cref="Any"/>. Either the waiter's test sees that change, or the owner sees
/// the waiter and runs the test (and <see cref="CompleteAll"/>) itself. The test must be true only of a moment when the
/// owner really was idle.
/// </remarks>
internal sealed class IdleWaiters
{
    private readonly Lock _lock = new();
    private readonly List<TaskCompletionSource> _waiters = []; // guarded by _lock
    private int _count; // the number of _waiters; written under _lock, read by the owner where it may have become idle

    /// <summary>Whether anybody waits: the owner reads it after the full fence of a change that may have made it idle.</summary>
    public bool Any => Volatile.Read(ref _count) != 0;

    /// <summary>A task that completes once <paramref name="isIdleNow"/> holds (now, or when the owner next finds it).</summary>
    public Task WaitAsync(Func<bool> isIdleNow, CancellationToken cancellationToken)
    {
        if (cancellationToken.IsCancellationRequested)
        {
            return Task.FromCanceled(cancellationToken);
        }

        if (isIdleNow())
        {
            return Task.CompletedTask;
        }

        var waiter = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        lock (_lock)
        {
            _waiters.Add(waiter);
            Interlocked.Increment(ref _count); // full fence before our own test (see the remarks)
        }

        if (isIdleNow())
        {
            CompleteAll();
        }

        return cancellationToken.CanBeCanceled && !waiter.Task.IsCompleted ? WaitCancellableAsync(waiter, cancellationToken) : waiter.Task;
    }

    /// <summary>Completes every waiter (the owner is idle, or has shut down).</summary>
    public void CompleteAll()
    {
        lock (_lock)
        {
            foreach (TaskCompletionSource waiter in _waiters)
            {
                waiter.TrySetResult();
            }

            _waiters.Clear();
            Volatile.Write(ref _count, 0);
        }
    }

    // A cancelled wait leaves the list, so an owner that stays busy does not keep cancelled waiters for ever.
    private async Task WaitCancellableAsync(TaskCompletionSource waiter, CancellationToken cancellationToken)
    {
        try
        {
            await waiter.Task.WaitAsync(cancellationToken).ConfigureAwait(false);
        }
        catch (OperationCanceledException) when (cancellationToken.IsCancellationRequested && !waiter.Task.IsCompleted)
        {
            lock (_lock)
            {
                if (_waiters.Remove(waiter))
                {
                    Interlocked.Decrement(ref _count);
                }
            }

            throw;
        }
    }
}
