namespace SlimPool.Bench.Work;

/// <summary>An empty item: it only records its completion on its stripe of a <see cref="StripedCountdown"/>.</summary>
internal sealed class CountdownItem(StripedCountdown countdown, int stripe) : BenchWorkItem
{
    /// <summary>One item per stripe of <paramref name="countdown"/>; queue item i mod the array's length for item i.</summary>
    public static CountdownItem[] ForEachStripe(StripedCountdown countdown)
    {
        var items = new CountdownItem[countdown.Stripes];
        for (int s = 0; s < items.Length; s++)
        {
            items[s] = new CountdownItem(countdown, s);
        }

        return items;
    }

    public override void Execute() => countdown.Signal(stripe);
}
