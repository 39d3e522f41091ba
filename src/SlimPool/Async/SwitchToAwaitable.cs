using System.Runtime.CompilerServices;
using SlimPool.Async;

namespace SlimPool;

/// <summary>The awaitable returned by <see cref="SlimThreadPool.SwitchTo"/> and <see cref="SlimThreadPoolGroup.SwitchTo"/>.</summary>
public readonly struct SwitchToAwaitable
{
    private readonly ISchedulingTarget _target;
    private readonly bool _alwaysYield;

    internal SwitchToAwaitable(ISchedulingTarget target, bool alwaysYield)
    {
        _target = target;
        _alwaysYield = alwaysYield;
    }

    /// <summary>Gets the awaiter.</summary>
    /// <returns>The awaiter.</returns>
    public SwitchToAwaiter GetAwaiter() => new(_target, _alwaysYield);
}
