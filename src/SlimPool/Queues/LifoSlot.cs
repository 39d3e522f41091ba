using SlimPool.Scheduling;

namespace SlimPool.Queues;

/// <summary>
/// A worker's LIFO slot: the item it queued last, which it runs next (tokio's <c>lifo_slot</c>, Go's
/// <c>runnext</c>). A chain of items that each queue a successor, an actor that messages another, a continuation: the
/// next item runs on the core whose cache holds its data, without a trip through the ring.
/// </summary>
/// <remarks>
/// <para><b>Version.</b> <c>_version</c> is odd while the slot holds an entry. Only the owner makes it odd: it writes
/// the entry, then the version with a release store. Anyone empties it with a compare-and-swap from the odd value
/// it read to the next even one, so each entry is taken exactly once. A thief reads the version, then the entry,
/// then tries that compare-and-swap: if the owner took the entry and put another meanwhile, the version moved on by
/// two and the thief's compare-and-swap fails, so a torn read of the cell is never returned.</para>
/// <para><b>Clearing.</b> The owner takes the entry after its compare-and-swap and clears the cell. A thief may not
/// clear (the owner may already be writing the next entry), so the owner clears a cell a thief emptied when it next
/// finds the version moved without it (<c>_ownerVersion</c>, the version after the owner's own last change).</para>
/// <para><b>Grace.</b> A thief leaves the slot to its owner for about 5 µs (<see cref="TryStealAfterGrace"/>):
/// an owner that pops its chain's next item within that time keeps it; one that is busy longer (a long item, or one
/// that blocks) loses it. A worker's fair look takes it without waiting (<see cref="TryStealIfStill"/>) only when the
/// version it read at its previous fair look at this slot has not moved since: the owner left that entry untaken for
/// at least that long.</para>
/// </remarks>
internal sealed class LifoSlot
{
    // Thread.SpinWait(1) is normalized to a few tens of nanoseconds (45 ns on the development machine), so about 5 µs:
    // longer than one Akka mailbox run of 30 short messages (about 1.2 µs), so the owner runs the mailbox it scheduled
    // itself rather than an idle sibling moving the actor pair to the other core (akka-pingpong, one pair: 44 ms a
    // million messages on one core, 290 ms when the pair bounces between two).
    private const int GraceSpins = 120;

    private EntryCell _entry;
    private PaddedLong _version;
    private long _ownerVersion; // owner only

    /// <summary>Owner only: whether the slot holds the entry the owner put last, as far as the owner knows (a thief may
    /// have taken it since).</summary>
    public bool OwnerHolds => (_ownerVersion & 1) != 0;

    /// <summary>
    /// Owner only: the callback of the entry the owner put last, while the owner knows of no take since; a thief may have
    /// taken it meanwhile, and then <see cref="TryTake"/> fails. Thieves never write the cell, so the read is not torn.
    /// </summary>
    public object? OwnerEntryCallback => (_ownerVersion & 1) != 0 ? _entry.Callback : null;

    /// <summary>Whether the slot held no entry.</summary>
    public bool IsEmpty => (Volatile.Read(ref _version.Value) & 1) == 0;

    /// <summary>Owner only: takes the entry, if the slot holds one.</summary>
    public bool TryTake(out QueuedWorkItem item)
    {
        long version = _ownerVersion;
        if ((version & 1) != 0 && Interlocked.CompareExchange(ref _version.Value, version + 1, version) == version)
        {
            item = _entry.Take();
            _ownerVersion = version + 1;
            return true;
        }

        CatchUp();
        item = default;
        return false;
    }

    /// <summary>Owner only, with the slot empty (after <see cref="TryTake"/>): makes <paramref name="item"/> its entry.</summary>
    public void Put(in QueuedWorkItem item)
    {
        long version = _ownerVersion + 1;
        System.Diagnostics.Debug.Assert((version & 1) != 0 && Volatile.Read(ref _version.Value) == version - 1, "the owner puts only into an empty slot it has caught up with");
        _entry.Write(item);
        _ownerVersion = version;
        Volatile.Write(ref _version.Value, version); // release: the entry is written before a thief sees it
    }

    /// <summary>Any thread: the slot's version, odd while it holds an entry; each entry put and each take move it on.</summary>
    public long Version => Volatile.Read(ref _version.Value);

    /// <summary>Any thread: takes the entry of <paramref name="version"/>, if the slot still holds it.</summary>
    public bool TryStealIfStill(long version, out QueuedWorkItem item) => TrySteal(version, out item);

    /// <summary>Any thread: takes the entry at once.</summary>
    public bool TrySteal(out QueuedWorkItem item) => TrySteal(Volatile.Read(ref _version.Value), out item);

    /// <summary>Any thread: takes the entry if its owner has not taken it within the grace (see the remarks).</summary>
    public bool TryStealAfterGrace(out QueuedWorkItem item)
    {
        long version = Volatile.Read(ref _version.Value);
        if ((version & 1) == 0)
        {
            item = default;
            return false;
        }

        // One look at the end, not a poll: every read of the slot costs the owner a cache miss on its next take. A
        // version that moved means the entry was taken (the contract allows failing then), and is seen with a read:
        // a compare-and-swap, even one that fails, would take the line from an owner that runs a chain through it.
        Thread.SpinWait(GraceSpins);
        if (Volatile.Read(ref _version.Value) != version)
        {
            item = default;
            return false;
        }

        return TrySteal(version, out item);
    }

    // Takes the entry of `version` (odd), if it is still there.
    private bool TrySteal(long version, out QueuedWorkItem item)
    {
        if ((version & 1) != 0)
        {
            item = _entry.Read(); // after the acquire load of the version: the entry of that version, or torn
            if (Interlocked.CompareExchange(ref _version.Value, version + 1, version) == version)
            {
                return true; // the version had not moved, so neither had the entry: not torn
            }
        }

        item = default;
        return false;
    }

    // Owner only: a thief emptied the slot since the owner's last change; drop the references it left.
    private void CatchUp()
    {
        long version = Volatile.Read(ref _version.Value);
        if (version != _ownerVersion)
        {
            _entry.Clear();
            _ownerVersion = version;
        }
    }
}
