namespace SlimPool.Async;

/// <summary>
/// Runs tasks as items of a <see cref="SlimThreadPool"/>: one cached delegate with the task as its state, so
/// queueing a task allocates nothing beyond the task itself.
/// </summary>
internal sealed class SlimTaskScheduler : TaskScheduler
{
    private readonly SlimThreadPool _pool;
    private readonly Action<object?> _execute;

    public SlimTaskScheduler(SlimThreadPool pool)
    {
        _pool = pool;
        _execute = task => TryExecuteTask((Task)task!);
    }

    public override int MaximumConcurrencyLevel => _pool.WorkerCount;

    protected override void QueueTask(Task task)
    {
        if ((task.CreationOptions & TaskCreationOptions.LongRunning) != 0)
        {
            // A long-running task would hold a worker; give it a thread of its own, as the default scheduler does. It
            // counts as the pool's work until it returns (WaitForIdleAsync).
            _pool.Idle.OnLongRunningStarting();
            new Thread(static state =>
            {
                var (scheduler, longRunning) = ((SlimTaskScheduler, Task))state!;
                try
                {
                    scheduler.TryExecuteTask(longRunning);
                }
                finally
                {
                    scheduler._pool.Idle.OnLongRunningFinished();
                }
            })
            {
                IsBackground = true,
                Name = "SlimPool long-running task",
            }.UnsafeStart((this, task));
            return;
        }

        if (!_pool.TryEnqueue(_execute, task))
        {
            throw new ObjectDisposedException(nameof(SlimThreadPool), "The pool has been disposed and no longer accepts tasks.");
        }
    }

    // Inline only on this pool's own workers: running the task on a foreign thread (a caller blocked in Wait, say)
    // would break the promise that the pool's tasks run on the pool.
    protected override bool TryExecuteTaskInline(Task task, bool taskWasPreviouslyQueued) =>
        _pool.IsOwnWorker && TryExecuteTask(task);

    // The pool's queues cannot be enumerated safely while workers run; returning null tells the debugger that
    // the scheduler does not support listing its tasks.
    protected override IEnumerable<Task>? GetScheduledTasks() => null;
}
