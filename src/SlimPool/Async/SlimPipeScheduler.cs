using System.IO.Pipelines;

namespace SlimPool.Async;

/// <summary>
/// The <see cref="PipeScheduler"/> of a pool or a group (<see cref="SlimThreadPool.PipeScheduler"/>): each continuation
/// a pipe schedules is one of the target's items.
/// </summary>
/// <remarks>
/// A pipe's continuation is the rest of someone's read or flush, so it is queued as the target's own continuations are
/// (<see cref="ISchedulingTarget.TryEnqueue(object, object?, ExecutionContext?)"/>, with no context: it runs in its own,
/// as on <see cref="PipeScheduler.ThreadPool"/>): never refused or delayed for back-pressure, and with no wrapper (a queue entry holds the pipe's callback and state as given). One that
/// comes after the target stopped accepting work runs on the built-in thread pool, so the reader or writer waiting on
/// it is never stranded and the pipe never sees an exception from the pool.
/// </remarks>
internal sealed class SlimPipeScheduler(ISchedulingTarget target) : PipeScheduler
{
    public override void Schedule(Action<object?> action, object? state)
    {
        ArgumentNullException.ThrowIfNull(action);
        // With no context of the pool's, as the built-in PipeScheduler.ThreadPool queues it: the continuation is the rest
        // of a read or a flush, which runs in its own; the thread that schedules it (the writer's flush, for a reader) is
        // no part of it.
        if (!target.TryEnqueue(action, state, context: null))
        {
            target.RunRefused(action, state);
        }
    }

    public override string ToString() => target switch
    {
        SlimThreadPoolGroup group => $"PipeScheduler of group {group.Name}",
        _ => $"PipeScheduler of pool {target.Pool.Name}",
    };
}
