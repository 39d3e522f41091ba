namespace SlimPool.Async;

/// <summary>
/// Runs tasks as items of a <see cref="SlimThreadPool"/> or of a group: one cached delegate with the task as its state,
/// so queueing a task allocates nothing beyond the task itself.
/// </summary>
internal sealed class SlimTaskScheduler : TaskScheduler
{
    [ThreadStatic]
    private static bool t_refuseLoudly; // set only around a Run's StartNew, where a refusal can reach its caller

    private readonly ISchedulingTarget _target;
    private readonly Action<object?> _execute;

    public SlimTaskScheduler(ISchedulingTarget target)
    {
        _target = target;
        _execute = task => TryExecuteTask((Task)task!);
    }

    /// <summary>The <c>Run(Action)</c> of a pool and of a group: see <see cref="SlimThreadPool.Run(Action, CancellationToken)"/>.</summary>
    public Task Run(Action action, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(action);
        ThrowIfShutDown();
        return StartNewRefusingLoudly(static a => ((Action)a!)(), action, cancellationToken);
    }

    /// <summary>The <c>Run(Func&lt;T&gt;)</c> of a pool and of a group.</summary>
    public Task<T> Run<T>(Func<T> function, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(function);
        ThrowIfShutDown();
        return StartNewRefusingLoudly(static f => ((Func<T>)f!)(), function, cancellationToken);
    }

    /// <summary>The <c>Run(Func&lt;Task&gt;)</c> of a pool and of a group: the flow's continuations come back here.</summary>
    public Task Run(Func<Task> function, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(function);
        ThrowIfShutDown();
        return StartNewRefusingLoudly(static f => ((Func<Task>)f!)(), function, cancellationToken).Unwrap();
    }

    /// <summary>The <c>Run(Func&lt;Task&lt;T&gt;&gt;)</c> of a pool and of a group.</summary>
    public Task<T> Run<T>(Func<Task<T>> function, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(function);
        ThrowIfShutDown();
        return StartNewRefusingLoudly(static f => ((Func<Task<T>>)f!)(), function, cancellationToken).Unwrap();
    }

    /// <summary>
    /// Starts a new task on this scheduler for a Run call: a refusal throws (a <see cref="TaskSchedulerException"/> around an
    /// <see cref="ObjectDisposedException"/>) instead of sending the task to the built-in pool.
    /// </summary>
    public Task<TResult> StartNewRefusingLoudly<TResult>(Func<object?, TResult> function, object? state, CancellationToken cancellationToken)
    {
        t_refuseLoudly = true;
        try
        {
            return Task.Factory.StartNew(function, state, cancellationToken, TaskCreationOptions.DenyChildAttach, this);
        }
        finally
        {
            t_refuseLoudly = false;
        }
    }

    /// <inheritdoc cref="StartNewRefusingLoudly{TResult}"/>
    public Task StartNewRefusingLoudly(Action<object?> action, object? state, CancellationToken cancellationToken)
    {
        t_refuseLoudly = true;
        try
        {
            return Task.Factory.StartNew(action, state, cancellationToken, TaskCreationOptions.DenyChildAttach, this);
        }
        finally
        {
            t_refuseLoudly = false;
        }
    }

    public override int MaximumConcurrencyLevel => _target.MaximumConcurrencyLevel;

    // A Run on a target that already shut down throws its own ObjectDisposedException, before any task is made.
    private void ThrowIfShutDown()
    {
        if (_target.IsShutDown)
        {
            throw _target.NewDisposedException();
        }
    }

    protected override void QueueTask(Task task)
    {
        // A group's long-running task is one of its items like any other: a thread of its own would escape the group's
        // concurrency limit.
        // A long-running task the pool no longer accepts is refused below, as every other task is.
        if ((task.CreationOptions & TaskCreationOptions.LongRunning) != 0 && _target is SlimThreadPool pool
            && pool.LongRunning.TryAccept(() => pool.IsClosedToLongRunning))
        {
            // A long-running task would hold a worker; give it a thread of its own, as the default scheduler does. It is
            // the pool's work like any other task: counted as an item once it returns, before it stops counting as the
            // pool's work (WaitForIdleAsync, and the shutdown, which waits for it: LongRunningTasks), so whoever sees it
            // gone sees the count too.
            new Thread(static state =>
            {
                var (scheduler, longRunning) = ((SlimTaskScheduler, Task))state!;
                SlimThreadPool owner = scheduler._target.Pool;
                bool last = owner.LongRunning.Run(() =>
                {
                    try
                    {
                        scheduler.TryExecuteTask(longRunning);
                    }
                    finally
                    {
                        owner.OnItemCompleted(null);
                    }
                });
                if (last)
                {
                    owner.Idle.OnLongRunningFinished();
                }
            })
            {
                IsBackground = true,
                Name = $"{pool.Name} long-running task", // named after its pool, as the workers are
            }.UnsafeStart((this, task));
            return;
        }

        // With no context of the pool's: a task runs in the one it captured when it was made (none under a suppressed
        // flow, and then in the worker's, as its start hook left it); this thread's, for a continuation whoever
        // completed the antecedent, is no part of it.
        if (!_target.TryEnqueue(_execute, task, context: null))
        {
            // Refused (an abandon began, or the shutdown is over). Inside a Run's StartNew the caller learns of it. Anywhere
            // else the task may be an await's continuation, where an exception reaches Task.ThrowAsync and ends the
            // process: it runs on the built-in pool instead, as the SynchronizationContext runs a late Post.
            if (t_refuseLoudly)
            {
                throw new ObjectDisposedException(nameof(SlimThreadPool), "The pool or group has been shut down and no longer accepts tasks.");
            }

            _target.RunRefused(
                static late =>
                {
                    var (scheduler, refused) = ((SlimTaskScheduler, Task))late!;
                    scheduler.TryExecuteTask(refused);
                },
                (this, task));
        }
    }

    // Inline only where the target's items run (the pool's own workers; inside one of the group's items): running the
    // task on a foreign thread (a caller blocked in Wait, say) would break the promise that the pool's tasks run on the
    // pool, and a group's that at most so many run at once.
    // A group whose item is suspended under this call (an item run inline or by a Dispose inside it) runs the task back
    // inside the group: waiting for the group's turn would wait for this very thread.
    protected override bool TryExecuteTaskInline(Task task, bool taskWasPreviouslyQueued)
    {
        if (_target.IsRunningItemsOnCurrentThread)
        {
            return TryExecuteTask(task);
        }

        if (!_target.MaySendInline)
        {
            return false;
        }

        var run = new InlineRun(this, task);
        _target.RunInline(static s => ((InlineRun)s!).Execute(), run);
        return run.Ran;
    }

    // One task run inline back inside its group (TryExecuteTaskInline), and whether it ran.
    private sealed class InlineRun(SlimTaskScheduler scheduler, Task task)
    {
        public bool Ran { get; private set; }

        public void Execute() => Ran = scheduler.TryExecuteTask(task);
    }

    // The pool's queues cannot be enumerated safely while workers run; returning null tells the debugger that
    // the scheduler does not support listing its tasks.
    protected override IEnumerable<Task>? GetScheduledTasks() => null;
}
