using System.Collections.Concurrent;

namespace SlimPool.Tests.Composition;

/// <summary>How many of a group's items run at this moment, the most seen, and who overlapped when the limit was passed.</summary>
internal sealed class GroupTracker(int index, int limit)
{
    private readonly ConcurrentDictionary<string, byte> _running = new();
    private int _count;
    private int _most;

    public int Index => index;

    public int Limit => limit;

    public int Most => Volatile.Read(ref _most);

    /// <summary>One line per start that took the group past its limit, with the steps running then.</summary>
    public ConcurrentQueue<string> Overlaps { get; } = new();

    public void Enter(string step)
    {
        int count = Interlocked.Increment(ref _count);
        _running[step] = 0;
        int most = Volatile.Read(ref _most);
        while (count > most && Interlocked.CompareExchange(ref _most, count, most) != most)
        {
            most = Volatile.Read(ref _most);
        }

        if (count > limit && Overlaps.Count < 8)
        {
            Overlaps.Enqueue($"{step} started on '{Thread.CurrentThread.Name}' while {count - 1} of g{index}'s steps ran ({string.Join(", ", _running.Keys.Where(k => k != step).Order(StringComparer.Ordinal))})");
        }
    }

    public void Exit(string step)
    {
        _running.TryRemove(step, out _);
        Interlocked.Decrement(ref _count);
    }
}
