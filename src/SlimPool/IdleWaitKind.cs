namespace SlimPool;

/// <summary>How idle workers wait for work; see <see cref="SlimThreadPoolOptions.IdleWait"/>.</summary>
public enum IdleWaitKind
{
    /// <summary>
    /// The seed design: one <see cref="System.Threading.AutoResetEvent"/> shared by all workers; a push sets
    /// it only when the idle count is above zero. Every such push pays for a system call.
    /// </summary>
    AutoResetEvent,

    /// <summary>
    /// The default: a worker that runs out of work spins briefly, then parks on its own primitive. A push wakes
    /// at most one worker, the one that parked last, and none while another worker is still searching; a woken
    /// worker that finds more work waiting wakes the next (a chain), so producers rarely make a system call.
    /// </summary>
    SpinThenPark,
}
