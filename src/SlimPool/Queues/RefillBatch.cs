using System.Diagnostics;
using SlimPool.Scheduling;

namespace SlimPool.Queues;

/// <summary>
/// A worker's batch from the shared queue (<see cref="WorkStealingWorkQueue"/>'s refill): a short first-in first-out
/// run of items queued from outside, which its owner fills only when it is empty, and which the owner and thieves take
/// from oldest first. Kept apart from the owner's slot and ring, so the items that the owner's own items queue cannot
/// bury it, and a batch moved between workers keeps its order.
/// </summary>
/// <remarks>
/// <para>One producer (the owner), any number of takers (the owner and thieves). <c>_state</c> packs a generation,
/// the batch's count and the position of the next entry to take. The owner fills only when every position has been
/// taken (<c>next == count</c>; takers only ever raise <c>next</c>, up to <c>count</c>, so an empty batch stays empty
/// until the owner fills it): it writes the slots, then publishes a state of a new generation with an exchange (a full
/// fence: the slots are written before any taker can read the new count).</para>
/// <para>A taker reads the state (acquire), reads the slot at <c>next</c>, then moves <c>next</c> on with a
/// compare-and-swap of the whole state. Takers never write a slot. A taker whose read raced the owner's rewrite of the
/// slot (a later generation) fails its compare-and-swap, because the state changed: the owner rewrites slots only after
/// it saw the state with every position taken, which is not the state the taker read, and it then moves the state to
/// a new generation. So a successful compare-and-swap returns the entry of the generation it read, exactly once.</para>
/// <para>Slots of taken entries are cleared by the owner: at the next fill, or when it runs out of work
/// (<see cref="ClearTaken"/>, which moves to a new generation first), so no slot keeps an item alive after it ran
/// beyond the owner's next idle moment.</para>
/// </remarks>
internal sealed class RefillBatch
{
    /// <summary>The most entries a batch holds.</summary>
    public const int Capacity = 15;

    private const int CountShift = 8;
    private const long PositionMask = 0xFF;
    private const long GenerationUnit = 1L << 16;
    private const long GenerationMask = ~(GenerationUnit - 1);

    private readonly QueuedWorkItem[] _items = new QueuedWorkItem[Capacity];
    private PaddedLong _state; // generation << 16 | count << 8 | next
    private int _stale;        // owner only: slots below this may hold entries already taken

    /// <summary>The number of entries not yet taken.</summary>
    public int Count
    {
        get
        {
            long state = Volatile.Read(ref _state.Value);
            return (int)(((state >> CountShift) & PositionMask) - (state & PositionMask));
        }
    }

    /// <summary>Whether every entry has been taken.</summary>
    public bool IsEmpty => Count == 0;

    /// <summary>Owner only, with the batch empty: makes <paramref name="entries"/> the batch, oldest first.</summary>
    public void Fill(ReadOnlySpan<QueuedWorkItem> entries)
    {
        Debug.Assert(IsEmpty, "the owner fills only an empty batch");
        Debug.Assert(entries.Length is > 0 and <= Capacity, "a batch holds 1 to Capacity entries");
        entries.CopyTo(_items);
        for (int i = entries.Length; i < _stale; i++)
        {
            _items[i] = default;
        }

        _stale = entries.Length;
        long generation = (_state.Value & GenerationMask) + GenerationUnit;
        Interlocked.Exchange(ref _state.Value, generation | ((long)entries.Length << CountShift));
    }

    /// <summary>Any thread: takes the oldest entry not yet taken; false when the batch is empty.</summary>
    public bool TryTake(out QueuedWorkItem item)
    {
        while (true)
        {
            long state = Volatile.Read(ref _state.Value);
            long next = state & PositionMask;
            if (next >= ((state >> CountShift) & PositionMask))
            {
                item = default;
                return false;
            }

            item = _items[next];
            if (Interlocked.CompareExchange(ref _state.Value, state + 1, state) == state)
            {
                return true;
            }

            // Another taker moved on first, or the owner refilled: look again.
        }
    }

    /// <summary>Owner only: if the batch is empty, drops the references its slots still hold.</summary>
    public void ClearTaken()
    {
        if (_stale == 0)
        {
            return;
        }

        long state = Volatile.Read(ref _state.Value);
        if ((state & PositionMask) < ((state >> CountShift) & PositionMask))
        {
            return;
        }

        // A new, empty generation before the slots change: a taker that read the old state fails its compare-and-swap.
        // Only the owner publishes a non-empty state, so the exchange cannot hide an entry.
        Interlocked.Exchange(ref _state.Value, (state & GenerationMask) + GenerationUnit);
        Array.Clear(_items, 0, _stale);
        _stale = 0;
    }
}
