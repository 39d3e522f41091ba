namespace SlimPool.Bench.Scenarios;

/// <summary>A stream of completions: each <see cref="Raise"/> completes one awaited <see cref="Next"/>, in order; raises may come first.</summary>
internal sealed class AsyncSignal
{
    private readonly Queue<TaskCompletionSource> _waiters = new();
    private int _pending;

    public Task Next()
    {
        lock (_waiters)
        {
            if (_pending > 0)
            {
                _pending--;
                return Task.CompletedTask;
            }

            var waiter = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
            _waiters.Enqueue(waiter);
            return waiter.Task;
        }
    }

    public void Raise()
    {
        TaskCompletionSource? waiter;
        lock (_waiters)
        {
            if (!_waiters.TryDequeue(out waiter))
            {
                _pending++;
                return;
            }
        }

        waiter.SetResult();
    }
}
