namespace SlimPool.Workers;

/// <summary>
/// Which items the pool's counts include: each user item once, never the pool's own machinery (a priority lane's
/// ticket, a group's turn), which counts the user items it runs itself.
/// </summary>
/// <remarks>
/// Every place that runs a queue entry (the worker loop, the shutdown's runs on the calling thread, a full bounded
/// <c>Queue</c> running inline) asks <see cref="TakeIsUserItem()"/> after the entry returns. A machinery entry calls
/// <see cref="MarkNotAUserItem()"/> before it returns; the mark is the running thread's alone and is cleared by the next
/// ask, so an entry that runs other entries inline (a shutdown from inside an item) sees only their marks.
/// </remarks>
internal static class ItemAccounting
{
    /// <summary>The entry running on this thread is the pool's own: it does not count as an item.</summary>
    public static void MarkNotAUserItem() => MarkNotAUserItem(PoolThreadLocals.GetOrCreate());

    /// <summary>As <see cref="MarkNotAUserItem()"/>, with the current thread's locals at hand.</summary>
    public static void MarkNotAUserItem(PoolThreadLocals locals) => locals.NotAUserItem = true;

    /// <summary>After an entry returned: whether it counts as a user item. Clears the mark.</summary>
    public static bool TakeIsUserItem() => PoolThreadLocals.Current is not { } locals || TakeIsUserItem(locals);

    /// <summary>As <see cref="TakeIsUserItem()"/>, with the current thread's locals at hand.</summary>
    public static bool TakeIsUserItem(PoolThreadLocals locals)
    {
        if (!locals.NotAUserItem)
        {
            return true;
        }

        locals.NotAUserItem = false;
        return false;
    }
}
