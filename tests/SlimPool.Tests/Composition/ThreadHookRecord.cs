namespace SlimPool.Tests.Composition;

/// <summary>One worker thread as its hooks saw it: written by that thread alone, read once the program has settled.</summary>
internal sealed class ThreadHookRecord(ThreadHookRecords owner, string? name, int threadId)
{
    private int _starts;
    private int _exits;

    /// <summary>The program's hooks whose start hook made it.</summary>
    public ThreadHookRecords Owner => owner;

    public string? Name => name;

    public int ThreadId => threadId;

    public int Starts => Volatile.Read(ref _starts);

    public int Exits => Volatile.Read(ref _exits);

    /// <summary>The index the start hook was given, and the one the exit hook was given (-1 until it ran).</summary>
    public int StartIndex { get; private set; } = -1;

    public int ExitIndex { get; private set; } = -1;

    /// <summary>The ledger's sequence number when the start hook (first) ran, and when the exit hook ended.</summary>
    public long StartSeq { get; private set; }

    public long? ExitSeq { get; private set; }

    /// <summary>The ledger's clock when the start hook (first) ran.</summary>
    public TimeSpan StartTime { get; private set; }

    public void Started(int index, long seq, TimeSpan time)
    {
        if (Interlocked.Increment(ref _starts) == 1)
        {
            StartIndex = index;
            StartSeq = seq;
            StartTime = time;
        }
    }

    public void Exited(int index, long seq)
    {
        if (Interlocked.Increment(ref _exits) == 1)
        {
            ExitIndex = index;
            ExitSeq = seq;
        }
    }
}
