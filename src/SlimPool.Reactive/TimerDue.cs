namespace SlimPool.Reactive;

/// <summary>The longest wait one timer takes (the system timer's limit, about 49.7 days); longer waits re-arm.</summary>
internal static class TimerDue
{
    public static readonly TimeSpan Max = TimeSpan.FromMilliseconds(uint.MaxValue - 1);

    public static TimeSpan Clamp(TimeSpan wait) => wait > Max ? Max : wait;
}
