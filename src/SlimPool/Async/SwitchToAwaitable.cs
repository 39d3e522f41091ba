using System.Runtime.CompilerServices;

namespace SlimPool;

/// <summary>The awaitable returned by <see cref="SlimThreadPool.SwitchTo"/>.</summary>
public readonly struct SwitchToAwaitable
{
    private readonly SlimThreadPool _pool;
    private readonly bool _alwaysYield;

    internal SwitchToAwaitable(SlimThreadPool pool, bool alwaysYield)
    {
        _pool = pool;
        _alwaysYield = alwaysYield;
    }

    /// <summary>Gets the awaiter.</summary>
    /// <returns>The awaiter.</returns>
    public SwitchToAwaiter GetAwaiter() => new(_pool, _alwaysYield);
}
