namespace SlimPool.Tests.Infrastructure;

/// <summary>Interlocked operations the framework lacks.</summary>
internal static class Atomic
{
    /// <summary>Raises <paramref name="target"/> to <paramref name="value"/> if it is lower.</summary>
    public static void Max(ref int target, int value)
    {
        int seen = Volatile.Read(ref target);
        while (value > seen)
        {
            int previous = Interlocked.CompareExchange(ref target, value, seen);
            if (previous == seen)
            {
                return;
            }

            seen = previous;
        }
    }
}
