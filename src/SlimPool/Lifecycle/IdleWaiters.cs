using SlimPool.Workers;

namespace SlimPool.Lifecycle;

/// <summary>
/// The callers of a <c>WaitForIdleAsync</c> (a pool's or a group's): registered, then completed once their owner sees
/// itself idle; free while nobody waits (one read of <see cref="Any"/> where the owner may have become idle).
/// </summary>
/// <remarks>
/// <para><b>No missed completion</b>, whatever the owner's idle test: <see cref="WaitAsync"/> counts the waiter (an
/// interlocked increment, a full fence) and only then runs the test itself; the owner makes the change that can end its
/// busy state with a full fence and only then reads <see cref="Any"/>. Either the waiter's test sees that change, or the
/// owner sees the waiter and runs the test itself. The test must be true only of a moment when the owner really was
/// idle.</para>
/// <para><b>No stale completion.</b> A verdict of idle holds for the moment of its test, not after: between a test and
/// the completion an item may be accepted, and a waiter that registers then (and rightly sees that item pending) must
/// not be completed by the earlier verdict. So whoever tests first reads <see cref="Registered"/>, then tests, then
/// completes only the waiters numbered up to what it read (<see cref="CompleteUpTo"/>): each of those registered before
/// the test, which found the owner idle after their call.</para>
/// <para><b>Interrupts.</b> A group's turn completes its waiters on a worker, between two of the group's items, where the
/// item before may have left an interrupt pending: the lock is held through <see cref="ThreadInterrupts.Hold(Lock)"/>, so
/// a contended one gives the interrupt back after instead of throwing out of the turn before the waiters were told.</para>
/// </remarks>
internal sealed class IdleWaiters
{
    private readonly Lock _lock = new();
    private readonly List<(TaskCompletionSource Waiter, long Number)> _waiters = []; // guarded by _lock, in number order
    private int _count;       // the number of _waiters; written under _lock, read by the owner where it may have become idle
    private long _registered; // waiters registered so far: each one's number is the value its registration made

    /// <summary>Whether anybody waits: the owner reads it after the full fence of a change that may have made it idle.</summary>
    public bool Any => Volatile.Read(ref _count) != 0;

    /// <summary>The number of the last waiter registered: read before an idle test whose verdict goes to <see cref="CompleteUpTo"/>.</summary>
    public long Registered => Interlocked.Read(ref _registered);

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
        long number;
        using (ThreadInterrupts.Hold(_lock))
        {
            number = Interlocked.Increment(ref _registered);
            _waiters.Add((waiter, number));
            Interlocked.Increment(ref _count); // full fence before our own test (see the remarks)
        }

        if (isIdleNow())
        {
            CompleteUpTo(number); // this waiter and those before it; a later one makes its own test
        }

        return cancellationToken.CanBeCanceled && !waiter.Task.IsCompleted ? WaitCancellableAsync(waiter, cancellationToken) : waiter.Task;
    }

    /// <summary>
    /// Completes the waiters numbered up to <paramref name="registered"/> (a <see cref="Registered"/> read before the idle
    /// test that allows it); later ones wait on.
    /// </summary>
    public void CompleteUpTo(long registered)
    {
        // A group's turn completes them as it ends, after an item that may have left an interrupt pending: held off for the
        // completions, which may wake a thread blocked on its task (ThreadInterrupts.HoldOffPending).
        using ThreadInterrupts.PendingScope heldOff = ThreadInterrupts.HoldOffPending();
        using (ThreadInterrupts.Hold(_lock))
        {
            int done = 0;
            while (done < _waiters.Count && _waiters[done].Number <= registered)
            {
                _waiters[done].Waiter.TrySetResult();
                done++;
            }

            _waiters.RemoveRange(0, done);
            Volatile.Write(ref _count, _waiters.Count);
        }
    }

    /// <summary>Completes every waiter: the owner has shut down, and no later item can make it busy again.</summary>
    public void CompleteAll() => CompleteUpTo(long.MaxValue);

    // A cancelled wait leaves the list, so an owner that stays busy does not keep cancelled waiters for ever.
    private async Task WaitCancellableAsync(TaskCompletionSource waiter, CancellationToken cancellationToken)
    {
        try
        {
            await waiter.Task.WaitAsync(cancellationToken).ConfigureAwait(false);
        }
        catch (OperationCanceledException) when (cancellationToken.IsCancellationRequested && !waiter.Task.IsCompleted)
        {
            using (ThreadInterrupts.Hold(_lock))
            {
                int index = _waiters.FindIndex(entry => entry.Waiter == waiter);
                if (index >= 0)
                {
                    _waiters.RemoveAt(index);
                    Interlocked.Decrement(ref _count);
                }
            }

            throw;
        }
    }
}
