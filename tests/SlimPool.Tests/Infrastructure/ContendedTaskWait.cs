using System.Collections;
using System.Reflection;

namespace SlimPool.Tests.Infrastructure;

/// <summary>
/// A thread blocked in <c>Task.Wait</c> on a task, with the monitor of the event that wait sleeps on held by the test at
/// the instant the task completes: the completing thread's <c>Set</c> then meets a contended monitor, where an interrupt
/// pending on that thread throws after the task completed and before the waiter is pulsed. Loaded machines hit that instant
/// by chance (the waiter between its count and its wait); this makes it happen every time.
/// </summary>
internal static class ContendedTaskWait
{
    private static readonly FieldInfo s_continuation = typeof(Task).GetField("m_continuationObject", BindingFlags.NonPublic | BindingFlags.Instance)!;
    private static readonly FieldInfo s_eventLock = typeof(ManualResetEventSlim).GetField("m_lock", BindingFlags.NonPublic | BindingFlags.Instance)!;

    /// <summary>
    /// Blocks a thread in <paramref name="task"/>'s <c>Wait</c>, then as <see cref="HoldWhile"/>.
    /// </summary>
    /// <returns>Whether the waiting thread's <c>Wait</c> returned true (false: it slept out the timeout, its pulse lost).</returns>
    public static bool Run(Task task, Action complete, TimeSpan held)
    {
        bool returned = false;
        var waiter = new Thread(() => returned = task.Wait(Bounded.Timeout)) { IsBackground = true, Name = "ContendedTaskWait" };
        waiter.Start();
        HoldWhile(task, waiter, complete, held);
        Assert.True(waiter.Join(Bounded.Timeout + TimeSpan.FromSeconds(10)), "the waiter did not return");
        return returned;
    }

    /// <summary>
    /// Once <paramref name="waiter"/> sleeps in a wait on <paramref name="task"/>, holds the monitor of the event it sleeps
    /// on, runs <paramref name="complete"/> (which makes some thread complete the task), keeps the monitor
    /// <paramref name="held"/> long, then lets go.
    /// </summary>
    public static void HoldWhile(Task task, Thread waiter, Action complete, TimeSpan held)
    {
        object monitor = null!;
        Bounded.Until(
            () => (waiter.ThreadState & ThreadState.WaitSleepJoin) != 0 && (monitor = EventLockOf(task)!) is not null,
            "the waiter to sleep on its task's event");
        Thread.Sleep(50); // past the event's spin, in its monitor's wait

        Monitor.Enter(monitor);
        try
        {
            complete();
            Thread.Sleep(held);
        }
        finally
        {
            Monitor.Exit(monitor);
        }
    }

    // The monitor of the event Task.Wait registered as the task's completion action, once its wait has made it.
    private static object? EventLockOf(Task task)
    {
        object? continuation = s_continuation.GetValue(task);
        IEnumerable candidates = continuation as IEnumerable ?? new[] { continuation };
        foreach (object? candidate in candidates)
        {
            if (candidate is ManualResetEventSlim waitEvent && s_eventLock.GetValue(waitEvent) is { } monitor)
            {
                return monitor;
            }
        }

        return null;
    }
}
