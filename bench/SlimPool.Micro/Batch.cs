namespace SlimPool.Micro;

/// <summary>
/// Counts down the items of one benchmark batch and lets the queueing thread wait for the last one. It is both
/// the shared state of the state overload and the reusable work item (<see cref="IWorkItem"/> for SlimPool,
/// <see cref="IThreadPoolWorkItem"/> for the built-in pool called directly), so neither path allocates.
/// </summary>
internal sealed class Batch(int size) : IWorkItem, IThreadPoolWorkItem, IDisposable
{
    private static readonly TimeSpan s_timeout = TimeSpan.FromSeconds(30);

    private readonly ManualResetEventSlim _done = new(initialState: false);
    private int _remaining;

    /// <summary>The callback for the state overload: a static lambda, cached once, so queueing allocates no delegate.</summary>
    public static Action<object?> CompleteCallback { get; } = static state => ((Batch)state!).Complete();

    /// <summary>The callback for the built-in pool's generic state overload, <c>UnsafeQueueUserWorkItem&lt;TState&gt;</c>.</summary>
    public static Action<Batch> TypedCompleteCallback { get; } = static batch => batch.Complete();

    /// <summary>Arms the batch for <c>size</c> more items; call only when the previous batch has completed.</summary>
    public void Reset()
    {
        _done.Reset();
        Volatile.Write(ref _remaining, size);
    }

    /// <inheritdoc />
    public void Execute() => Complete();

    /// <summary>Records one finished item; the last one releases <see cref="Wait"/>.</summary>
    public void Complete()
    {
        if (Interlocked.Decrement(ref _remaining) == 0)
        {
            _done.Set();
        }
    }

    /// <summary>
    /// Waits until every item of the batch has run. <see cref="ManualResetEventSlim.Wait(TimeSpan)"/> spins briefly
    /// before it blocks, so a batch that is about to finish costs no kernel wait. Throws rather than hang if the
    /// pool loses items.
    /// </summary>
    public void Wait()
    {
        if (Volatile.Read(ref _remaining) != 0 && !_done.Wait(s_timeout))
        {
            throw new TimeoutException($"The batch did not complete within {s_timeout.TotalSeconds} s: {Volatile.Read(ref _remaining)} items outstanding.");
        }
    }

    public void Dispose() => _done.Dispose();
}
