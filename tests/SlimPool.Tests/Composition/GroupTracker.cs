using System.Collections.Concurrent;

namespace SlimPool.Tests.Composition;

/// <summary>How many of a group's items run at this moment, the most seen, and who overlapped when the limit was passed.</summary>
internal sealed class GroupTracker(int index, int limit)
{
    private readonly ConcurrentDictionary<string, byte> _running = new();
    private readonly ConcurrentDictionary<int, int> _threads = new(); // how many of the group's steps each thread runs now (nested ones included)
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
        _threads.AddOrUpdate(Environment.CurrentManagedThreadId, 1, static (_, n) => n + 1);
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
        _threads.AddOrUpdate(Environment.CurrentManagedThreadId, 0, static (_, n) => n - 1);
        Interlocked.Decrement(ref _count);
    }

    /// <summary>
    /// A Send's callback run inline as the group's work: this thread must be running one of the group's steps (or have one
    /// suspended under what it runs now), else the callback ran in the group beside its running items, past its limit.
    /// </summary>
    public void CheckHeldHere(string step)
    {
        if (_threads.GetValueOrDefault(Environment.CurrentManagedThreadId) == 0)
        {
            Interlocked.Exchange(ref _most, Math.Max(Volatile.Read(ref _most), limit + 1));
            if (Overlaps.Count < 8)
            {
                Overlaps.Enqueue($"{step}, sent to g{index}, ran inline on '{Thread.CurrentThread.Name}', which runs none of g{index}'s items ({string.Join(", ", _running.Keys.Order(StringComparer.Ordinal))} running)");
            }
        }
    }
}
