using SlimPool.Tests.Reliability;

namespace SlimPool.Soak;

/// <summary>
/// The long version of the differential blocking suite: a random blocking pattern on a fresh pool of a random queue
/// and idle wait, with the default options (no blocking hint, the starvation guard at its default), many times over.
/// Each pool is disposed after its trial, so the spares it grew do not count in the soak's thread samples.
/// </summary>
internal sealed class BlockingTrials(Random random)
{
    private readonly SortedDictionary<string, (int Count, TimeSpan Slowest)> _seen = new(StringComparer.Ordinal);

    public int Count { get; private set; }

    /// <summary>Runs one trial; false (with the reason logged) if the pattern missed its deadline or threw.</summary>
    public bool RunOne(TextWriter log)
    {
        string pattern = BlockingPatterns.Names[random.Next(BlockingPatterns.Names.Count)];
        var options = new SlimThreadPoolOptions
        {
            Queue = (WorkQueueKind)random.Next(3),
            IdleWait = (IdleWaitKind)random.Next(2),
            Name = "soak blocking",
        };

        int workers = options.WorkerCount;
        TimeSpan deadline = BlockingPatterns.Deadline(pattern, workers, options.StarvationTimeout); // the suite's rule
        using var pool = new SlimThreadPool(options);
        try
        {
            TimeSpan took = BlockingPatterns.Run(pattern, pool, workers, deadline);
            (int count, TimeSpan slowest) = _seen.GetValueOrDefault(pattern);
            _seen[pattern] = (count + 1, took > slowest ? took : slowest);
            Count++;
            return true;
        }
        catch (Exception exception)
        {
            log.WriteLine($"blocking trial {Count + 1} ({pattern} on {options.Queue}/{options.IdleWait}, {workers} workers): {exception.Message}");
            return false;
        }
    }

    public void Report(TextWriter log) =>
        log.WriteLine($"blocking trials {Count:N0} (each within its deadline): " +
                      string.Join(", ", _seen.Select(p => $"{p.Key} {p.Value.Count}× slowest {p.Value.Slowest.TotalMilliseconds:0} ms")));
}
