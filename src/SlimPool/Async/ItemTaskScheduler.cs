using System.Runtime.CompilerServices;

namespace SlimPool.Async;

/// <summary>
/// The <see cref="IThreadPool.TaskScheduler"/> of a pool that does not provide its own (one written before the member
/// existed): each task is one of the pool's items. One scheduler per pool, kept as long as the pool lives.
/// </summary>
internal sealed class ItemTaskScheduler : TaskScheduler
{
    private static readonly ConditionalWeakTable<IThreadPool, ItemTaskScheduler> s_schedulers = new();

    private readonly IThreadPool _pool;
    private readonly Action<object?> _execute;

    private ItemTaskScheduler(IThreadPool pool)
    {
        _pool = pool;
        _execute = task => TryExecuteTask((Task)task!);
    }

    public override int MaximumConcurrencyLevel => _pool.WorkerCount;

    /// <summary>The scheduler of <paramref name="pool"/>, made on first use.</summary>
    public static TaskScheduler For(IThreadPool pool) => s_schedulers.GetValue(pool, static p => new ItemTaskScheduler(p));

    protected override void QueueTask(Task task) => _pool.Queue(_execute, task);

    // Such a pool cannot say whether the current thread is one of its own: never inline, so a task runs on the pool.
    protected override bool TryExecuteTaskInline(Task task, bool taskWasPreviouslyQueued) => false;

    protected override IEnumerable<Task>? GetScheduledTasks() => null;
}
