namespace SlimPool.Soak;

/// <summary>Counts exceptions reported through <see cref="SlimThreadPoolOptions.UnhandledException"/>.</summary>
internal sealed class FaultCounter
{
    private long _count;

    public long Count => Interlocked.Read(ref _count);

    public void Report(Exception exception)
    {
        if (exception is SoakFault fault)
        {
            fault.Round.MarkFault(fault.Id);
        }

        Interlocked.Increment(ref _count);
    }
}
