using SlimPool.Groups;

namespace SlimPool.Tests.Groups;

/// <summary>
/// <see cref="TurnQuantum"/> on a fake clock: a quantum ends by its count or its time, within twice the limit for items
/// of similar length (or after its second item when one item alone reaches the limit), a turn of one item reads no
/// clock, and a quantum skips its early reads after a quantum of short items of the same turn.
/// </summary>
public sealed class TurnQuantumTests
{
    [Fact]
    public void OnItemRan_NoTimeLimit_SpentAtTheCountWithoutReadingTheClock()
    {
        var clock = new FakeClock();
        var quantum = new TurnQuantum(4, maxTicks: 0, clock: clock.Read);

        Assert.Equal(4, RunUntilSpent(ref quantum, clock, ticksPerItem: 1_000_000));
        Assert.Equal(0, clock.Reads);
    }

    [Fact]
    public void OnItemTaken_TurnOfOneItem_ReadsNoClock()
    {
        var clock = new FakeClock();
        var quantum = new TurnQuantum(32, maxTicks: 1_000, clock: clock.Read);

        quantum.OnItemTaken();
        clock.Advance(5_000); // longer than the limit: the turn ends after it anyway, its queue empty
        Assert.False(quantum.OnItemRan());

        Assert.Equal(0, clock.Reads);
    }

    [Fact]
    public void OnItemTaken_SecondItem_StartsTheClockOnce()
    {
        var clock = new FakeClock();
        var quantum = new TurnQuantum(32, maxTicks: 1_000, clock: clock.Read);

        Assert.Equal(2, RunUntilSpent(ref quantum, clock, ticksPerItem: 1_000)); // the clock from the 2nd item: 1,000 after it
        Assert.Equal(2, clock.Reads); // the start at the 2nd item, the read after it
    }

    [Theory]
    [InlineData(30, 100, 5)]     // clock from the 2nd item, reads after 2, 3, 5 items: 120 ticks >= 100 after the 5th
    [InlineData(40, 100, 3)]     // after the 3rd: 80 ticks for 2 timed items, 120 for all 3 at that rate
    [InlineData(90, 100, 2)]     // after the 2nd: 90 for the timed one, 180 for both at that rate
    [InlineData(100, 100, 2)]    // an item as long as the limit: spent after the 2nd, the first timed one
    [InlineData(7, 100, 17)]     // 112 ticks after the 17th
    public void OnItemRan_ItemsOfSimilarLength_SpentWithinTwiceTheLimit(long ticksPerItem, long maxTicks, int expectedItems)
    {
        var clock = new FakeClock();
        var quantum = new TurnQuantum(32, maxTicks, clock: clock.Read);

        int items = RunUntilSpent(ref quantum, clock, ticksPerItem);

        Assert.Equal(expectedItems, items);
        Assert.True(items * ticksPerItem < 2 * maxTicks || items == 2, $"{items} items of {ticksPerItem} ticks against a limit of {maxTicks}.");
    }

    [Fact]
    public void OnItemRan_ShortItems_LaterQuantaSkipTheEarlyReads()
    {
        var clock = new FakeClock();
        var quantum = new TurnQuantum(32, maxTicks: 1_000, clock: clock.Read);

        Assert.Equal(32, RunUntilSpent(ref quantum, clock, ticksPerItem: 1));
        Assert.Equal(6, clock.Reads); // the start at the 2nd item, and after the 2nd, 3rd, 5th, 9th and 17th

        for (int q = 0; q < 10; q++)
        {
            quantum.Restart();
            Assert.Equal(32, RunUntilSpent(ref quantum, clock, ticksPerItem: 1));
        }

        Assert.Equal(6 + (10 * 2), clock.Reads); // after the 8th and the 16th; each start is the spent quantum's read after its 16th
    }

    [Fact]
    public void Restart_ItemsSlowedAfterTheSpentQuantumsLastRead_TheNextQuantumCountsThemAndEndsSooner()
    {
        // A later quantum starts its clock at the spent quantum's latest read, not at a read of its own: its elapsed time
        // includes the spent quantum's items after that read, so it can only end sooner than with a fresh read.
        var clock = new FakeClock();
        var quantum = new TurnQuantum(32, maxTicks: 1_000, clock: clock.Read);
        RunUntilSpent(ref quantum, clock, ticksPerItem: 1);
        quantum.Restart();
        Assert.Equal(32, RunUntilSpent(ref quantum, clock, i => i <= 16 ? 1 : 50)); // 800 ticks after its last read, at 16
        int reads = clock.Reads;

        quantum.Restart();

        Assert.Equal(reads, clock.Reads); // no read to start it
        Assert.Equal(TurnQuantum.ShortSkip, RunUntilSpent(ref quantum, clock, ticksPerItem: 30)); // 800 + 240 at its 8th; 240 alone is not spent
    }

    [Fact]
    public void Constructor_StartShort_FirstQuantumSkipsTheEarlyReads()
    {
        var clock = new FakeClock();
        var quantum = new TurnQuantum(32, maxTicks: 1_000, startShort: true, clock: clock.Read);

        Assert.Equal(32, RunUntilSpent(ref quantum, clock, ticksPerItem: 1));
        Assert.Equal(3, clock.Reads); // the start at the 2nd item, and after the 9th and the 17th (8 and 16 timed)
        Assert.True(quantum.IsShort);
    }

    [Theory]
    [InlineData(3)]
    [InlineData(5)]
    [InlineData(9)]
    [InlineData(17)]
    public void Constructor_StartShortQuantumOfLongItems_ReadsBeforeItsCount(int maxItems)
    {
        // The skip after short items must leave the first quantum a read before its count: a quantum of 2^k + 1 read first
        // after its last item, so every item, each past the limit, ran unchecked (a review found it with 3).
        var clock = new FakeClock();
        var quantum = new TurnQuantum(maxItems, maxTicks: 1_000, startShort: true, clock: clock.Read);

        Assert.InRange(RunUntilSpent(ref quantum, clock, ticksPerItem: 2_369), 2, Math.Min(maxItems - 1, 1 + TurnQuantum.ShortSkip));
    }

    [Fact]
    public void Constructor_StartShortThenLongItems_NoticedWithinTheSkipAndNotShortAfter()
    {
        var clock = new FakeClock();
        var quantum = new TurnQuantum(32, maxTicks: 1_000, startShort: true, clock: clock.Read);

        Assert.Equal(1 + TurnQuantum.ShortSkip, RunUntilSpent(ref quantum, clock, ticksPerItem: 200)); // 1,600 after 8 timed
        Assert.False(quantum.IsShort); // the group's next turn reads from its second item again
    }

    [Theory]
    [InlineData(false)]
    [InlineData(true)]
    public void IsShort_NoReadInTheTurn_KeepsWhatTheTurnStartedWith(bool startShort)
    {
        var clock = new FakeClock();
        var quantum = new TurnQuantum(32, maxTicks: 1_000, startShort, clock: clock.Read);

        quantum.OnItemTaken();
        clock.Advance(5_000);
        Assert.False(quantum.OnItemRan()); // one item, its queue then empty: no read

        Assert.Equal(startShort, quantum.IsShort);
        Assert.Equal(0, clock.Reads);
    }

    [Fact]
    public void Constructor_StartShortSmallQuanta_FirstReadBeforeTheCount()
    {
        var clock = new FakeClock();
        var quantum = new TurnQuantum(4, maxTicks: 100, startShort: true, clock: clock.Read);

        Assert.Equal(3, RunUntilSpent(ref quantum, clock, ticksPerItem: 100)); // read after the 3rd (2 timed): 200 ticks
    }

    [Fact]
    public void OnItemRan_ShortFirstItemThenLongOnes_FirstQuantumKeepsEveryRead()
    {
        var clock = new FakeClock();
        var quantum = new TurnQuantum(32, maxTicks: 1_000, clock: clock.Read);

        Assert.Equal(2, RunUntilSpent(ref quantum, clock, i => i == 1 ? 0 : 1_000)); // read after the 2nd: 1,000
    }

    [Fact]
    public void OnItemRan_TimeOnlyQuantaShortFirstItemThenLongOnes_SpentByTime()
    {
        var clock = new FakeClock();
        var quantum = new TurnQuantum(int.MaxValue, maxTicks: 60_000_000_000, clock: clock.Read);

        int items = RunUntilSpent(ref quantum, clock, i => i == 1 ? 10 : 1_000_000, maxItems: 200_000);

        Assert.Equal(65_537, items); // the first read past 60 s (65,536 timed items): twice the limit at most
    }

    [Fact]
    public void OnItemRan_ItemsTurnLongAfterShortQuanta_NoticedWithinTheSkip()
    {
        var clock = new FakeClock();
        var quantum = new TurnQuantum(32, maxTicks: 1_000, clock: clock.Read);
        RunUntilSpent(ref quantum, clock, ticksPerItem: 1);
        quantum.Restart();

        Assert.Equal(TurnQuantum.ShortSkip, RunUntilSpent(ref quantum, clock, ticksPerItem: 200)); // 1,600 ticks after the 8th

        // Long items now: the next quantum reads from its first item again.
        quantum.Restart();
        Assert.Equal(8, RunUntilSpent(ref quantum, clock, ticksPerItem: 200)); // 800 after the 4th, 1,600 after the 8th
    }

    [Fact]
    public void OnItemRan_ItemsTurnLongAfterTheLastRead_NoticedWithinTheSkipOfTheNextQuantum()
    {
        var clock = new FakeClock();
        var quantum = new TurnQuantum(32, maxTicks: 1_000, clock: clock.Read);
        RunUntilSpent(ref quantum, clock, ticksPerItem: 1);
        quantum.Restart();

        Assert.Equal(32, RunUntilSpent(ref quantum, clock, i => i <= 16 ? 1 : 1_000)); // long after the last read, at 16
        quantum.Restart();
        Assert.Equal(TurnQuantum.ShortSkip, RunUntilSpent(ref quantum, clock, ticksPerItem: 1_000));
    }

    [Theory]
    [InlineData(0, 50, 3_200)] // a tiny first item, then items that fill most of a quantum's limit
    [InlineData(40, 40, 3_200)] // steady items at 40% of the limit a quantum: short, and stays short
    public void Restart_SteadyItems_EveryQuantumRunsItsCount(long firstItemTicks, long ticksPerItem, long maxTicks)
    {
        var clock = new FakeClock();
        var quantum = new TurnQuantum(32, maxTicks, clock: clock.Read);
        var sizes = new List<int>();
        for (int q = 0; q < 20; q++)
        {
            sizes.Add(RunUntilSpent(ref quantum, clock, i => i == 1 ? firstItemTicks : ticksPerItem));
            quantum.Restart();
        }

        Assert.All(sizes, size => Assert.Equal(32, size));
    }

    [Fact]
    public void OnItemRan_LongLimitAndManyItems_NoOverflowInTheShortTest()
    {
        var clock = new FakeClock();
        var quantum = new TurnQuantum(int.MaxValue, maxTicks: long.MaxValue / 8 * 2, clock: clock.Read);

        quantum.OnItemTaken();
        clock.Advance(long.MaxValue / 8); // a long first item, before the clock starts
        Assert.False(quantum.OnItemRan());
        quantum.OnItemTaken();
        clock.Advance(long.MaxValue / 8); // a second item as long: both, at its rate, reach the limit
        Assert.True(quantum.OnItemRan());
    }

    [Fact]
    public void OnItemRan_EveryItemLengthAndQuantumSize_SpentWithinTwiceTheLimitOrAfterTheSecondItem()
    {
        const long MaxTicks = 100;
        foreach (int maxItems in new[] { 3, 4, 5, 8, 32, 1_000 })
        {
            for (long ticksPerItem = 1; ticksPerItem <= 150; ticksPerItem++)
            {
                var clock = new FakeClock();
                var quantum = new TurnQuantum(maxItems, MaxTicks, clock: clock.Read);

                long length = ticksPerItem;
                int items = RunUntilSpent(ref quantum, clock, _ => length, maxItems: 2_000);

                Assert.True(
                    items == maxItems || items * ticksPerItem < 2 * MaxTicks || (items == 2 && ticksPerItem >= MaxTicks),
                    $"{items} items of {ticksPerItem} ticks against a limit of {MaxTicks} (quanta of {maxItems}).");
            }
        }
    }

    private static int RunUntilSpent(ref TurnQuantum quantum, FakeClock clock, long ticksPerItem) =>
        RunUntilSpent(ref quantum, clock, _ => ticksPerItem);

    private static int RunUntilSpent(ref TurnQuantum quantum, FakeClock clock, Func<int, long> ticksOfItem, int maxItems = 1_000)
    {
        for (int items = 1; items <= maxItems; items++)
        {
            quantum.OnItemTaken();
            clock.Advance(ticksOfItem(items));
            if (quantum.OnItemRan())
            {
                return items;
            }
        }

        throw new InvalidOperationException($"The quantum was not spent within {maxItems} items.");
    }

    private sealed class FakeClock
    {
        private long _now = 1;

        public int Reads { get; private set; }

        public long Read()
        {
            Reads++;
            return _now;
        }

        public void Advance(long ticks) => _now += ticks;
    }
}
