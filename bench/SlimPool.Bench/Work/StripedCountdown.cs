namespace SlimPool.Bench.Work;

/// <summary>
/// Counts a run's completions down without one shared contended counter: the count is split over stripes, each
/// on its own 128-byte line, and a caller signals the stripe its item belongs to (item i to stripe i mod S, so
/// items that run at the same time on different workers touch different lines). The last signal of a stripe
/// decrements a second counter that is touched once per stripe; the last of those sets <see cref="Done"/>.
/// Every pool pays the same, small, mostly uncontended cost per item.
/// </summary>
internal sealed class StripedCountdown
{
    public const int DefaultStripes = 64;

    private const int Stride = 16; // longs per stripe: 128 bytes, two cache lines, against adjacent-line prefetch

    private readonly long[] _remaining;
    private readonly long _total;
    private int _stripesLeft;

    public StripedCountdown(long total, int stripes = DefaultStripes)
    {
        ArgumentOutOfRangeException.ThrowIfNegativeOrZero(total);
        ArgumentOutOfRangeException.ThrowIfNegativeOrZero(stripes);
        stripes = (int)Math.Min(stripes, total);
        _total = total;
        _remaining = new long[(stripes + 1) * Stride];
        for (int s = 0; s < stripes; s++)
        {
            _remaining[(s + 1) * Stride] = (total / stripes) + (s < total % stripes ? 1 : 0);
        }

        _stripesLeft = stripes;
        Stripes = stripes;
    }

    /// <summary>The number of stripes; item i belongs to stripe <c>i % Stripes</c>.</summary>
    public int Stripes { get; }

    public ManualResetEventSlim Done { get; } = new(false);

    /// <summary>Completions so far, summed over the stripes (a snapshot; for progress and caps, not for timing).</summary>
    public long Completed
    {
        get
        {
            long remaining = 0;
            for (int s = 0; s < Stripes; s++)
            {
                remaining += Volatile.Read(ref _remaining[(s + 1) * Stride]);
            }

            return _total - remaining;
        }
    }

    /// <summary>Records one completion of an item of <paramref name="stripe"/>.</summary>
    public void Signal(int stripe)
    {
        if (Interlocked.Decrement(ref _remaining[(stripe + 1) * Stride]) == 0 && Interlocked.Decrement(ref _stripesLeft) == 0)
        {
            Done.Set();
        }
    }

    /// <summary>Waits for the last completion; a run that hangs fails with a message instead of hanging the program.</summary>
    public void Wait(string what)
    {
        if (!Done.Wait(TimeSpan.FromMinutes(5)))
        {
            throw new TimeoutException($"{what} did not finish within 5 minutes: {Completed:N0} of {_total:N0} items completed");
        }
    }
}
