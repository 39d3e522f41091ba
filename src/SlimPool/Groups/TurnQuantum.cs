using System.Diagnostics;

namespace SlimPool.Groups;

/// <summary>
/// A group turn's quantum: how many items it has run, and when it is spent (<see cref="SlimGroupOptions.MaxItemsPerTurn"/>
/// items, or <see cref="SlimGroupOptions.MaxTurnDuration"/> by the clock, whichever comes first). Owned by one turn,
/// on one thread.
/// </summary>
/// <remarks>
/// <para>A clock read costs about 40 ns on a virtual machine (kvm-clock), as much as a tiny item's whole hand-off, so
/// the clock is not read after every item. In a quantum it is read after the 1st, 2nd, 4th, 8th, ... item, so a
/// quantum of items of similar length ends within twice the limit.</para>
/// <para>A read that shows the items short (the whole quantum, at the rate so far, would take under half the limit)
/// stops the reads for the rest of that quantum, and the quanta after it read the clock once, half-way, until a read
/// shows longer items; their time counts from the read before (earlier than their start, so they end no later). For
/// items of similar length this changes nothing: a quantum of short items is spent by its count first. Items that
/// turn long after short ones are noticed within half a quantum of items, as they are after the half-way read of any
/// quantum.</para>
/// </remarks>
internal struct TurnQuantum
{
    private readonly int _maxItems;
    private readonly long _maxTicks;      // 0: no time limit
    private readonly Func<long>? _clock;  // tests' clock; null: Stopwatch
    private readonly int _halfWay;        // the read of a quantum after short ones: the largest power of two below _maxItems
    private int _items;                   // run in this quantum
    private int _nextRead;                // the item count after which the clock is read next; 0: none this quantum
    private long _startedAt;
    private long _lastRead;
    private bool _short;                  // the last read showed short items

    /// <summary>Starts a turn's first quantum.</summary>
    /// <param name="maxItems">Items a quantum may run (at least 1).</param>
    /// <param name="maxTicks">Stopwatch ticks a quantum may run; 0 for no time limit.</param>
    /// <param name="clock">The clock, for tests; null reads <see cref="Stopwatch.GetTimestamp"/>.</param>
    public TurnQuantum(int maxItems, long maxTicks, Func<long>? clock = null)
    {
        Debug.Assert(maxItems >= 1, "a quantum runs at least one item");
        _maxItems = maxItems;
        _maxTicks = maxTicks;
        _clock = clock;
        _halfWay = maxItems <= 1 ? 0 : 1 << (31 - int.LeadingZeroCount(maxItems - 1));
        _startedAt = _lastRead = maxTicks == 0 ? 0 : Now();
        _nextRead = maxTicks == 0 ? 0 : 1;
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

        long now = _lastRead = Now();
        long elapsed = now - _startedAt;
        if (elapsed >= _maxTicks)
        {
            _short = false; // the next quantum reads from its first item again
            return true;
        }

        // Short: the whole quantum at this rate stays under half the limit (elapsed / items * maxItems < maxTicks / 2).
        _short = (double)elapsed * _maxItems < _maxTicks / 2.0 * _items; // in doubles: a long limit times many items overflows a long
        _nextRead = _short || _items >= _halfWay ? 0 : _items * 2;
        return false;
    }

    /// <summary>Starts the next quantum of the same turn, after a spent one.</summary>
    public void Restart()
    {
        _items = 0;
        if (_maxTicks == 0)
        {
            return;
        }

        if (_short)
        {
            _startedAt = _lastRead;
            _nextRead = _halfWay;
        }
        else
        {
            _startedAt = _lastRead = Now();
            _nextRead = 1;
        }
    }

    private readonly long Now() => _clock is null ? Stopwatch.GetTimestamp() : _clock();
}
