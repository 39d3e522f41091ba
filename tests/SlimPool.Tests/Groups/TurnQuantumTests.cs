using SlimPool.Groups;

namespace SlimPool.Tests.Groups;

/// <summary>
/// <see cref="TurnQuantum"/> on a fake clock: a quantum ends by its count or its time, within twice the limit for items
/// of similar length, and reads the clock once a quantum while the items are short.
/// </summary>
public sealed class TurnQuantumTests
{
    [Fact]
    public void OnItemRan_NoTimeLimit_SpentAtTheCountWithoutReadingTheClock()
    {
        var clock = new FakeClock();
        var quantum = new TurnQuantum(4, maxTicks: 0, clock.Read);

        Assert.Equal(4, RunUntilSpent(ref quantum, clock, ticksPerItem: 1_000_000));
        Assert.Equal(0, clock.Reads);
    }

    [Theory]
    [InlineData(30, 100, 4)]     // reads after 1, 2, 4 items: 120 ticks >= 100 after the 4th
    [InlineData(100, 100, 1)]    // an item as long as the limit: spent after it
    [InlineData(7, 100, 16)]     // 112 ticks after the 16th
    public void OnItemRan_ItemsOfSimilarLength_SpentWithinTwiceTheLimit(long ticksPerItem, long maxTicks, int expectedItems)
    {
        var clock = new FakeClock();
        var quantum = new TurnQuantum(32, maxTicks, clock.Read);

        int items = RunUntilSpent(ref quantum, clock, ticksPerItem);

        Assert.Equal(expectedItems, items);
        Assert.True(items * ticksPerItem < 2 * maxTicks || items == 1, $"{items} items of {ticksPerItem} ticks against a limit of {maxTicks}.");
    }

    [Fact]
    public void OnItemRan_ShortItems_ReadsTheClockOnceAQuantumAfterTheFirst()
    {
        var clock = new FakeClock();
        var quantum = new TurnQuantum(32, maxTicks: 1_000, clock.Read);

        Assert.Equal(32, RunUntilSpent(ref quantum, clock, ticksPerItem: 1));
        Assert.Equal(2, clock.Reads); // the start, and after the 1st item (short: no more this quantum)

        for (int q = 0; q < 10; q++)
        {
            quantum.Restart();
            Assert.Equal(32, RunUntilSpent(ref quantum, clock, ticksPerItem: 1));
        }

        Assert.Equal(2 + 10, clock.Reads); // one half-way read a quantum
    }

    [Fact]
    public void OnItemRan_ItemsTurnLongAfterShortOnes_SpentWithinHalfAQuantum()
    {
        var clock = new FakeClock();
        var quantum = new TurnQuantum(32, maxTicks: 1_000, clock.Read);
        RunUntilSpent(ref quantum, clock, ticksPerItem: 1);
        quantum.Restart();

        Assert.Equal(16, RunUntilSpent(ref quantum, clock, ticksPerItem: 200)); // read half-way: 3,200 ticks

        // Long items now: the next quantum reads from its first item again.
        quantum.Restart();
        Assert.Equal(8, RunUntilSpent(ref quantum, clock, ticksPerItem: 200)); // 1,600 ticks after the 8th
    }

    [Fact]
    public void OnItemRan_LongLimitAndManyItems_NoOverflowInTheShortTest()
    {
        var clock = new FakeClock();
        var quantum = new TurnQuantum(int.MaxValue, maxTicks: long.MaxValue / 8 * 2, clock.Read);

        clock.Advance(long.MaxValue / 8); // a long first item: not short
        Assert.False(quantum.OnItemRan());
        clock.Advance(long.MaxValue / 8);
        Assert.True(quantum.OnItemRan()); // the limit, reached after the 2nd item's read
    }

    private static int RunUntilSpent(ref TurnQuantum quantum, FakeClock clock, long ticksPerItem)
    {
        for (int items = 1; items <= 1_000; items++)
        {
            clock.Advance(ticksPerItem);
            if (quantum.OnItemRan())
            {
                return items;
            }
        }

        throw new InvalidOperationException("The quantum was not spent within 1,000 items.");
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
