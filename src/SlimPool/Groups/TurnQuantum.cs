using System.Diagnostics;

namespace SlimPool.Groups;

/// <summary>
/// A group turn's quantum: how many items it has run, and when it is spent (<see cref="SlimGroupOptions.MaxItemsPerTurn"/>
/// items, or <see cref="SlimGroupOptions.MaxTurnDuration"/> by the clock, whichever comes first). Owned by one turn,
/// on one thread.
/// </summary>
/// <remarks>
/// <para>A clock read costs about 40 ns on a virtual machine (kvm-clock), as much as a tiny item's whole hand-off, so
/// the clock is not read after every item. A turn's first quantum starts its clock when the turn takes its second item
/// (<see cref="OnItemTaken"/>), so a turn that runs one item and finds the queue empty (an actor's message, a serial
/// queue fed one item at a time) reads no clock at all; it then reads it after the items counted from there double: after
/// the 2nd, 3rd, 5th, 9th, ... item. The first item runs before the clock starts and is counted at the rate of those
/// timed after it, so a quantum of items of similar length ends within twice the limit, or after its second item when
/// a single item reaches it. A later quantum of the same turn (<see cref="Restart"/>) starts its clock at the spent
/// quantum's latest reading, without a read of its own: earlier than its start, so it can only end sooner (a turn whose
/// items slowed after that reading gives the worker back sooner), and it reads the clock after its 1st, 2nd, 4th, 8th,
/// ... item.</para>
/// <para>A turn of a group whose previous turn read short items last starts as a later quantum after short ones does:
/// its first read comes after <see cref="ShortSkip"/> timed items. A serial queue that other groups' turns interleave
/// yields after every quantum, so each of its turns is a first quantum; without this it would read the clock six times
/// every 32 items instead of three.</para>
/// <para>When the last read of a quantum shows its items short (the whole quantum at that rate under half the limit),
/// the next quantum of the same turn skips the reads after its first <see cref="ShortSkip"/> items and reads from the
/// <see cref="ShortSkip"/>-th on (two reads a quantum of 32 instead of five). For items of similar length this
/// changes nothing: such a quantum is spent by its count first. An item that turns long right after short quanta is
/// noticed within <see cref="ShortSkip"/> items instead of after the first.</para>
/// </remarks>
internal struct TurnQuantum
{
    /// <summary>After a quantum of short items, the first read of the next comes after this many items.</summary>
    internal const int ShortSkip = 8;

    private readonly int _maxItems;
    private readonly long _maxTicks;      // 0: no time limit
    private readonly Func<long>? _clock;  // tests' clock; null: Stopwatch
    private readonly int _lastRead;       // a later quantum's last read: the largest power of two below _maxItems (0: none)
    private int _items;                   // run in this quantum
    private int _nextRead;                // the item count after which the clock is read next; 0: none this quantum
    private int _itemsBeforeClock;        // items of this quantum run before its clock started (1 in a turn's first)
    private bool _clockPending;           // the first quantum's clock starts when its second item is taken
    private long _startedAt;
    private long _lastReadAt;             // the latest reading of the clock (this quantum's, or the one its start took over)
    private bool _hasRead;                // whether _lastReadAt holds a reading
    private bool _short;                  // the quantum's latest read showed short items

    /// <summary>Starts a turn's first quantum; its clock starts at the turn's second item.</summary>
    /// <param name="maxItems">Items a quantum may run (at least 1).</param>
    /// <param name="maxTicks">Stopwatch ticks a quantum may run; 0 for no time limit.</param>
    /// <param name="startShort">
    /// Whether the group's previous turn last read short items (<see cref="IsShort"/>): the first read then comes after
    /// <see cref="ShortSkip"/> timed items, as in a later quantum after short ones, instead of after the first.
    /// </param>
    /// <param name="clock">The clock, for tests; null reads <see cref="Stopwatch.GetTimestamp"/>.</param>
    public TurnQuantum(int maxItems, long maxTicks, bool startShort = false, Func<long>? clock = null)
    {
        Debug.Assert(maxItems >= 1, "a quantum runs at least one item");
        _maxItems = maxItems;
        _maxTicks = maxTicks;
        _clock = clock;
        _lastRead = maxItems <= 1 ? 0 : 1 << (31 - int.LeadingZeroCount(maxItems - 1));
        _short = startShort;

        // A quantum of two is spent by its count at its first read. Otherwise the first read comes after the second item
        // (the first timed one), or, after short items, after ShortSkip timed ones: the untimed first item and the skip.
        // After short items at most at the count's last item but one, so that the quantum reads before its count spends it.
        _nextRead = maxTicks == 0 || maxItems <= 2 ? 0 : startShort ? Math.Min(1 + Math.Min(ShortSkip, _lastRead), maxItems - 1) : 2;
        _clockPending = _nextRead != 0;
    }

    /// <summary>
    /// Whether the latest read showed short items (the whole quantum at their rate under half the limit), or, before
    /// any read, what the quantum started with. A group keeps it from one turn to its next.
    /// </summary>
    public readonly bool IsShort => _short;

    /// <summary>
    /// The turn took its next item and is about to run it: at the first quantum's second item, the clock starts. A turn
    /// calls this before every item it runs.
    /// </summary>
    [System.Runtime.CompilerServices.MethodImpl(System.Runtime.CompilerServices.MethodImplOptions.AggressiveInlining)]
    public void OnItemTaken()
    {
        if (_clockPending && _items == 1)
        {
            StartClock();
        }
    }

    /// <summary>Counts an item run; true when the quantum is spent.</summary>
    public bool OnItemRan()
    {
        if (++_items >= _maxItems)
        {
            return true;
        }

        if (_items != _nextRead)
        {
            return false;
        }

        // The items run before the clock started count at the timed items' rate (elapsed / timed * items): a quantum whose
        // items would together reach the limit is spent, so the untimed first item does not stretch the bound past twice
        // the limit. In doubles: a long limit times many items overflows a long.
        long now = Now();
        _lastReadAt = now;
        _hasRead = true;
        long elapsed = now - _startedAt;
        int timed = _items - _itemsBeforeClock;
        if (elapsed >= _maxTicks || (_itemsBeforeClock != 0 && (double)elapsed * _items >= (double)_maxTicks * timed))
        {
            _short = false;
            return true;
        }

        // Short: the whole quantum at this rate stays under half the limit (elapsed / timed * maxItems < maxTicks / 2).
        // The next read comes when the timed items double.
        _short = (double)elapsed * _maxItems < _maxTicks / 2.0 * timed;
        long next = _itemsBeforeClock + (2L * timed);
        _nextRead = next >= _maxItems ? 0 : (int)next;
        return false;
    }

    /// <summary>Starts the next quantum of the same turn, after a spent one.</summary>
    public void Restart()
    {
        _items = 0;
        _itemsBeforeClock = 0;
        _clockPending = false;
        if (_maxTicks == 0 || _maxItems <= 1)
        {
            return; // no time limit, or a quantum of one item, spent by its count before any read
        }

        // The spent quantum's latest read starts this one's clock where it has one: no later than now, so this quantum's
        // elapsed time counts the spent one's items after that read too, and it can only end sooner than by a reading
        // taken now. A quantum that carries on runs its items at the same rate, so this saves a read a quantum (of three,
        // after short items) and moves no bound.
        _startedAt = _hasRead ? _lastReadAt : Now();
        _lastReadAt = _startedAt;
        _hasRead = true;
        _nextRead = _short ? Math.Min(ShortSkip, _lastRead) : 1;
    }

    private void StartClock()
    {
        _clockPending = false;
        _itemsBeforeClock = _items;
        _startedAt = _lastReadAt = Now();
        _hasRead = true;
    }

    private readonly long Now() => _clock is null ? Stopwatch.GetTimestamp() : _clock();
}
