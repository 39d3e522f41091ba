using SlimPool;

namespace SlimPool.Extensions.DependencyInjection;

/// <summary>
/// The pools a container has created (one per registration resolved), so that
/// <see cref="SlimThreadPoolHostedService"/> shuts down those and creates no other.
/// </summary>
internal sealed class SlimThreadPoolTracker
{
    private readonly Lock _lock = new();
    private readonly List<SlimThreadPool> _pools = [];

    /// <summary>Records a pool the container has just created.</summary>
    public void Add(SlimThreadPool pool)
    {
        ArgumentNullException.ThrowIfNull(pool);
        lock (_lock)
        {
            _pools.Add(pool);
        }
    }

    /// <summary>The pools created so far, in creation order.</summary>
    public SlimThreadPool[] Snapshot()
    {
        lock (_lock)
        {
            return [.. _pools];
        }
    }
}
