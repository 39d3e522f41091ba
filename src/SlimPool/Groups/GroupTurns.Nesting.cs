using System.Diagnostics;
using SlimPool.Workers;

namespace SlimPool.Groups;

/// <summary>A thread's nested groups: the group whose item it runs, and those whose items it left suspended (an item
/// run inline, a turn run inside another group's item).</summary>
internal sealed partial class GroupTurns
{
    /// <summary>
    /// Leaves the group whose item the current thread runs, if any, for an item that is not the group's; the group's item
    /// stays suspended on this thread meanwhile (<see cref="IsCurrentOrSuspendedHere"/>).
    /// </summary>
    /// <returns>The group left, to give to <see cref="Return"/>.</returns>
    public static GroupTurns? Leave()
    {
        if (PoolThreadLocals.Current is not { CurrentGroup: { } current } locals)
        {
            return null;
        }

        locals.CurrentGroup = null;
        Suspend(locals, current);
        return current;
    }

    /// <summary>Goes back into the group <see cref="Leave"/> left.</summary>
    public static void Return(GroupTurns? group)
    {
        if (group is not null)
        {
            PoolThreadLocals locals = PoolThreadLocals.Current!; // Leave found it holding the group
            Resume(locals);
            locals.CurrentGroup = group;
        }
    }

    /// <summary>Whether the current thread is running one of this group's items.</summary>
    public bool IsCurrent => PoolThreadLocals.Current?.CurrentGroup == this;

    /// <summary>
    /// Whether the current thread runs one of this group's items, or runs something inside one it left suspended (an
    /// item run inline or by a Dispose, another group's turn): a Send to the group from there must run inline, since the
    /// group's turn cannot go on while this thread waits.
    /// </summary>
    public bool IsCurrentOrSuspendedHere
    {
        get
        {
            if (PoolThreadLocals.Current is not { } locals)
            {
                return false;
            }

            if (locals.CurrentGroup == this)
            {
                return true;
            }

            GroupTurns?[]? suspended = locals.Suspended;
            for (int i = 0; i < locals.SuspendedCount; i++)
            {
                if (suspended![i] == this)
                {
                    return true;
                }
            }

            return false;
        }
    }

    /// <summary>
    /// Runs <paramref name="action"/> on this thread as the group's own work while one of its items is suspended here
    /// (<see cref="IsCurrentOrSuspendedHere"/>): in the group, under its SynchronizationContext, as it would run called
    /// from that item itself; the group whose item this thread runs now, if any, is suspended meanwhile, and it and the
    /// thread's context come back after.
    /// </summary>
    public void RunReentered(Action<object?> action, object? state)
    {
        Debug.Assert(IsCurrentOrSuspendedHere, "re-entered only from under one of the group's own items");
        PoolThreadLocals locals = PoolThreadLocals.Current!; // it holds the suspended item
        Outer outer = Enter(locals);
        try
        {
            action(state);
        }
        finally
        {
            Exit(locals, outer);
        }
    }

    // What Enter replaced on the thread, for Exit to put back: the group whose item the thread ran, now suspended, and
    // the thread's SynchronizationContext.
    private readonly record struct Outer(GroupTurns? Group, SynchronizationContext? Context);

    // Makes this the group whose item the current thread runs, under the group's SynchronizationContext; the group whose
    // item it ran, if any, stays suspended on it until Exit. Nothing between the two may throw before the try that
    // ends with Exit.
    private Outer Enter(PoolThreadLocals locals)
    {
        var outer = new Outer(locals.CurrentGroup, ThreadContexts.SynchronizationContextOf(locals.Thread));
        locals.CurrentGroup = this;
        if (outer.Group is not null)
        {
            Suspend(locals, outer.Group);
        }

        ThreadContexts.SetSynchronizationContext(locals.Thread, _group.SynchronizationContext);
        return outer;
    }

    private static void Exit(PoolThreadLocals locals, in Outer outer)
    {
        if (outer.Group is not null)
        {
            Resume(locals);
        }

        locals.CurrentGroup = outer.Group;
        ThreadContexts.SetSynchronizationContext(locals.Thread, outer.Context);
    }

    // The groups whose items this thread left suspended, innermost last: pushed by Leave and by a turn run inside another
    // group's item (Execute), popped as they return. Touched only on those nested paths.
    private static void Suspend(PoolThreadLocals locals, GroupTurns group)
    {
        GroupTurns?[] suspended = locals.Suspended ??= new GroupTurns?[4];
        if (locals.SuspendedCount == suspended.Length)
        {
            Array.Resize(ref locals.Suspended, suspended.Length * 2);
        }

        locals.Suspended![locals.SuspendedCount++] = group;
    }

    private static void Resume(PoolThreadLocals locals) => locals.Suspended![--locals.SuspendedCount] = null;
}
