namespace SlimPool;

/// <summary>
/// A reusable unit of work. Queueing an <see cref="IWorkItem"/> is SlimPool's zero-allocation path:
/// the pool stores a reference to the object and calls <see cref="Execute"/> once per queueing.
/// </summary>
/// <remarks>
/// The same instance may be queued again, even from inside its own <see cref="Execute"/>; each queueing
/// results in exactly one call. An exception thrown by <see cref="Execute"/> never kills the worker: it is
/// reported through <see cref="SlimThreadPoolOptions.UnhandledException"/>.
/// </remarks>
public interface IWorkItem
{
    /// <summary>Runs the work. Called on a pool thread.</summary>
    void Execute();
}
