namespace SlimPool.Tests.Infrastructure;

/// <summary>One counter per item id: after a run every slot must be exactly 1 (ran once: not lost, not twice).</summary>
internal sealed class Ledger
{
    private readonly int[] _slots;
    private readonly CountdownEvent _done;

    public Ledger(int count)
    {
        _slots = new int[count];
        _done = new CountdownEvent(count);
    }

    public int Count => _slots.Length;

    public void Mark(int id)
    {
        Interlocked.Increment(ref _slots[id]);
        _done.Signal();
    }

    /// <summary>How many times item <paramref name="id"/> has run.</summary>
    public int CountOf(int id) => Volatile.Read(ref _slots[id]);

    /// <summary>How many runs were recorded in all.</summary>
    public int Total => _done.InitialCount - _done.CurrentCount;

    /// <summary>Queues one item per id, each marking its slot.</summary>
    public void QueueEach(IThreadPool pool)
    {
        for (int i = 0; i < _slots.Length; i++)
        {
            int id = i;
            pool.Queue(() => Mark(id));
        }
    }

    public void WaitAll(string what) => Bounded.Wait(_done, what);

    public void AssertEachExactlyOnce()
    {
        for (int i = 0; i < _slots.Length; i++)
        {
            int count = Volatile.Read(ref _slots[i]);
            if (count != 1)
            {
                Assert.Fail($"Item {i} ran {count} times; every item must run exactly once.");
            }
        }
    }
}
