using Akka.Dispatch;

namespace SlimPool.Akka;

/// <summary>
/// One dispatcher's executor: a <see cref="SlimThreadPool"/> of its own that runs the dispatcher's mailboxes.
/// </summary>
/// <remarks>
/// Akka queues a mailbox each time it has messages and is not already queued, so the same <see cref="IRunnable"/>
/// comes back again and again. It is an <see cref="IThreadPoolWorkItem"/>, queued as such, which costs no allocation
/// per queueing. From one of this pool's workers (an actor telling another actor on the same dispatcher) it goes to
/// that worker's own queue with <c>preferLocal: true</c>, as Akka's default executor queues it on the built-in pool.
/// </remarks>
internal sealed class SlimPoolExecutorService : ExecutorService
{
    private readonly SlimThreadPool _pool;

    public SlimPoolExecutorService(string id, SlimThreadPoolOptions options) : base(id) => _pool = new SlimThreadPool(options);

    /// <summary>The pool behind this executor.</summary>
    internal SlimThreadPool Pool => _pool;

    /// <inheritdoc />
    /// <exception cref="RejectedExecutionException">The executor has been shut down: the dispatcher retries once on
    /// the executor that replaced it.</exception>
    public override void Execute(IRunnable run)
    {
        ArgumentNullException.ThrowIfNull(run);
        if (!_pool.TryQueue(run, preferLocal: true))
        {
            throw new RejectedExecutionException($"The SlimPool of dispatcher '{Id}' has been shut down.");
        }
    }

    /// <summary>
    /// Stops accepting work and drains: every mailbox run already queued still runs, then the workers exit. It does
    /// not wait for them: Akka calls this on its scheduler's thread, which must not block.
    /// </summary>
    public override void Shutdown() => _ = _pool.ShutdownAsync(ShutdownMode.Drain);
}
