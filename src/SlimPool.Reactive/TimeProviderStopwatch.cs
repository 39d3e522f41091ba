using System.Reactive.Concurrency;

namespace SlimPool.Reactive;

/// <summary>Rx's stopwatch on a <see cref="TimeProvider"/>'s monotonic timestamps (not its wall clock, which may jump).</summary>
internal sealed class TimeProviderStopwatch(TimeProvider timeProvider) : IStopwatch
{
    private readonly long _start = timeProvider.GetTimestamp();

    public TimeSpan Elapsed => timeProvider.GetElapsedTime(_start);
}
