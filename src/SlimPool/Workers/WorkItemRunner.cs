using System.Diagnostics;
using SlimPool.Groups;
using SlimPool.Queues;

namespace SlimPool.Workers;

/// <summary>
/// Runs one item on the current thread: in the ExecutionContext it flowed in with, its exception caught and reported
/// (the worker lives on), and nothing it set left behind for the next item. Also runs the thread hooks.
/// </summary>
/// <remarks>Used by the workers, by shutdown (items run on the thread that finishes a drain) and by a full bounded
/// <c>Queue</c> on a worker (inline), the last two through <see cref="ExecuteNested"/>. Owns the count of exceptions reported; any thread may add to it.</remarks>
/// <param name="unhandledException">The pool's <c>UnhandledException</c> callback; null writes to Trace.</param>
/// <param name="source">Names the pool type in what is written to Trace.</param>
internal sealed class WorkItemRunner(Action<Exception>? unhandledException, string source = nameof(SlimThreadPool))
{
    private long _unhandledExceptionCount;

    /// <summary>The number of exceptions items (and hooks) have thrown; each was reported once.</summary>
    public long UnhandledExceptionCount => Interlocked.Read(ref _unhandledExceptionCount);

    /// <summary>
    /// Runs <paramref name="item"/>, then restores <paramref name="restoreContext"/> and
    /// <paramref name="restoreSyncContext"/> if the item (or the context it flowed in with) changed them: an
    /// AsyncLocal value, a suppressed flow, a SynchronizationContext.
    /// </summary>
    public void Execute(in QueuedWorkItem item, ExecutionContext? restoreContext, SynchronizationContext? restoreSyncContext)
    {
        RunReporting(item);

        if (restoreContext is not null && ExecutionContext.Capture() != restoreContext)
        {
            ExecutionContext.Restore(restoreContext);
        }

        if (SynchronizationContext.Current != restoreSyncContext)
        {
            SynchronizationContext.SetSynchronizationContext(restoreSyncContext);
        }
    }

    /// <summary>
    /// Runs <paramref name="item"/> on the thread <paramref name="contexts"/> was made on, then puts back the contexts it
    /// holds if the item changed them (<see cref="ThreadContexts.RestoreAfterItem"/>). A thread that runs many items in a
    /// row makes its <see cref="ThreadContexts"/> once.
    /// </summary>
    public void Execute(in QueuedWorkItem item, in ThreadContexts contexts)
    {
        RunReporting(item);
        contexts.RestoreAfterItem();
    }

    /// <summary>
    /// Runs <paramref name="item"/> nested inside whatever this thread runs now (an item run inline by a full bounded
    /// <c>Queue</c>, a shutdown's leftover), as a worker would run it: in <paramref name="context"/> (the item's own, or a
    /// clean one; never the caller's), under <paramref name="workersContext"/>, outside any group whose item this thread
    /// is inside, and a blocking scope it leaves open ends with it. <see cref="ExecutionContext.Run"/> gives the caller
    /// back exactly the context it had, a suppressed flow included (which Capture cannot see), and the caller's
    /// SynchronizationContext comes back after.
    /// </summary>
    public void ExecuteNested(in QueuedWorkItem item, ExecutionContext? context, SynchronizationContext? workersContext)
    {
        GroupTurns? outerGroup = GroupTurns.Leave();
        WorkerBlockingState? blocking = CurrentWorker.Blocking;
        long scopesBefore = blocking?.Serial ?? 0;
        var call = (this, item, workersContext, SynchronizationContext.Current);
        try
        {
            if (context is null)
            {
                ExecuteAsWorker(call);
            }
            else
            {
                ExecutionContext.Run(context, static s => ExecuteAsWorker(((WorkItemRunner, QueuedWorkItem, SynchronizationContext?, SynchronizationContext?))s!), call);
            }
        }
        finally
        {
            blocking?.EndOfNestedItem(scopesBefore);
            GroupTurns.Return(outerGroup);
        }

        static void ExecuteAsWorker((WorkItemRunner Runner, QueuedWorkItem Item, SynchronizationContext? WorkersContext, SynchronizationContext? Outer) call)
        {
            SynchronizationContext.SetSynchronizationContext(call.WorkersContext);
            call.Runner.Execute(call.Item, restoreContext: null, call.Outer);
        }
    }

    // Runs the item in the context it flowed in with, if any; an exception is reported, never rethrown. Inlined into
    // both Execute overloads: it is on every item's path.
    [System.Runtime.CompilerServices.MethodImpl(System.Runtime.CompilerServices.MethodImplOptions.AggressiveInlining)]
    private void RunReporting(in QueuedWorkItem item)
    {
        try
        {
            if (item.Context is { } context)
            {
                ExecutionContext.Restore(context);
            }

            item.Invoke();
        }
        catch (Exception exception)
        {
            ReportUnhandled(exception);
        }
    }

    /// <summary>Runs a thread hook (<c>OnThreadStart</c>, <c>OnThreadExit</c>); an exception is reported like an item's.</summary>
    public void InvokeThreadHook(Action<int>? hook, int index)
    {
        if (hook is null)
        {
            return;
        }

        try
        {
            hook(index);
        }
        catch (Exception exception)
        {
            ReportUnhandled(exception);
        }
    }

    /// <summary>Counts <paramref name="exception"/> and hands it to the callback (or Trace); never throws.</summary>
    public void ReportUnhandled(Exception exception)
    {
        Interlocked.Increment(ref _unhandledExceptionCount);
        Action<Exception>? handler = unhandledException;
        if (handler is null)
        {
            Trace.TraceError($"SlimPool.{source}: a work item threw an unhandled exception: {exception}");
            return;
        }

        try
        {
            handler(exception);
        }
        catch (Exception handlerException)
        {
            Trace.TraceError($"SlimPool.{source}: the UnhandledException callback threw: {handlerException}; the item's exception was: {exception}");
        }
    }
}
