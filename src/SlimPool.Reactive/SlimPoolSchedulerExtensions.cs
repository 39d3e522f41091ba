namespace SlimPool.Reactive;

/// <summary>Makes an Rx scheduler of a pool or group: <c>pool.AsScheduler()</c>, <c>group.AsScheduler()</c>.</summary>
public static class SlimPoolSchedulerExtensions
{
    /// <summary>
    /// A new <see cref="SlimPoolScheduler"/> over <paramref name="pool"/> (a <see cref="SlimThreadPool"/>, a
    /// <see cref="SlimThreadPoolGroup"/>, a <see cref="ManagedThreadPool"/>, ...). It holds no resources of its own:
    /// keep one per pool and pass it around, or make another; either way the pool runs every action.
    /// </summary>
    /// <param name="pool">The pool or group whose items run the actions.</param>
    /// <param name="timeProvider">The clock and timers; <see langword="null"/> for <see cref="TimeProvider.System"/>.</param>
    /// <returns>The scheduler.</returns>
    /// <exception cref="ArgumentNullException"><paramref name="pool"/> is <see langword="null"/>.</exception>
    public static SlimPoolScheduler AsScheduler(this IThreadPool pool, TimeProvider? timeProvider = null) =>
        new(pool, timeProvider);
}
