using System.Collections.Concurrent;

namespace SlimPool.Tests.Composition;

/// <summary>
/// The pool's <c>OnThreadStart</c> and <c>OnThreadExit</c> hooks for a program that sets them, and what they saw. The start
/// hook sets <see cref="ProgramRun.HookLocal"/> to the pool's name (the baseline every item queued without a context
/// starts from) and, on a thread started once the pool was made (a spare), opens a blocking scope and sleeps in it; the
/// exit hook does the same (the unkind hooks: scopes that are no item's, opened by a spare that is starting or leaving,
/// or a worker that a shutdown let go). Each thread's starts, exits and their sequence
/// numbers are kept for <see cref="ThreadChecks"/>.
/// </summary>
internal sealed class ThreadHookRecords(ComposeLedger ledger, string poolName)
{
    // Each thread's own record, made by its start hook (a managed thread id is reused once a thread's object is
    // collected, so ids cannot tell two spares apart).
    [ThreadStatic]
    private static ThreadHookRecord? t_record;

    private readonly ConcurrentQueue<ThreadHookRecord> _threads = new();
    private SlimThreadPool? _pool;

    public IEnumerable<ThreadHookRecord> Threads => _threads;

    /// <summary>Hooks that ran on a thread other than one of the pool's workers, or an exit on a thread that never started.</summary>
    public ConcurrentQueue<string> Strays { get; } = new();

    /// <summary>The pool the exit hook blocks in; set once the pool's constructor returned (no worker exits before).</summary>
    public void Attach(SlimThreadPool pool) => Volatile.Write(ref _pool, pool);

    public void OnStart(int index)
    {
        Thread thread = Thread.CurrentThread;
        if (t_record is not { } record || record.Owner != this)
        {
            record = new ThreadHookRecord(this, thread.Name, thread.ManagedThreadId);
            t_record = record;
            _threads.Enqueue(record);
        }

        record.Started(index, ledger.Next(), ledger.Elapsed);
        if (thread.Name?.StartsWith(poolName + " #", StringComparison.Ordinal) != true)
        {
            Strays.Enqueue($"OnThreadStart({index}) ran on '{thread.Name}', not on one of the pool's workers");
        }

        ProgramRun.HookLocal.Value = poolName;
        SleepInABlockingScope();
    }

    public void OnExit(int index)
    {
        Thread thread = Thread.CurrentThread;
        if (t_record is not { } record || record.Owner != this)
        {
            Strays.Enqueue($"OnThreadExit({index}) ran on '{thread.Name}', which ran no OnThreadStart");
            return;
        }

        SleepInABlockingScope();
        record.Exited(index, ledger.Next());
    }

    private void SleepInABlockingScope()
    {
        if (Volatile.Read(ref _pool) is { } pool)
        {
            using (pool.EnterBlocking())
            {
                Thread.Sleep(1);
            }
        }
    }
}
