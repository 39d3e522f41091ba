namespace SlimPool.Micro;

/// <summary>A reusable batch of items: counts completions and lets the benchmark wait for the last one.</summary>
internal sealed class Batch(int size) : IWorkItem
{
    private readonly ManualResetEventSlim _done = new(false);
    private int _remaining;

    public void Reset()
    {
        _done.Reset();
        Volatile.Write(ref _remaining, size);
    }

    public void Execute() => Signal();

    public void Signal()
    {
        if (Interlocked.Decrement(ref _remaining) == 0)
        {
            _done.Set();
        }
    }

    public void Wait()
    {
        if (!_done.Wait(TimeSpan.FromSeconds(30)))
        {
            throw new TimeoutException($"batch did not complete: {Volatile.Read(ref _remaining)} items outstanding");
        }
    }
}
