namespace SlimPool.Soak;

/// <summary>
/// One round: <see cref="Count"/> item ids, each of which must be marked exactly once. Kinds by id: tiny,
/// spinning, blocking (1–3 ms, half inside RunBlocking), throwing (marked by the exception handler), nested (the item queues its
/// second half from inside the pool), async (awaits, then marks; the continuation runs wherever the awaiter
/// resumes until SlimPool's SynchronizationContext exists), cancelled (a twin queued with a cancelled token must
/// be skipped, or its id is marked twice; the nested half goes with a live token).
/// </summary>
internal sealed class SoakRound
{
    private readonly int[] _slots;
    private readonly CountdownEvent _done;
    private static readonly CancellationToken s_cancelled = new(canceled: true);
    private static readonly CancellationTokenSource s_live = new();
    private readonly int _seed;
    private long _faults;

    public SoakRound(int count, int seed)
    {
        _slots = new int[count];
        _done = new CountdownEvent(count);
        _seed = seed;
    }

    public int Count => _slots.Length;

    public int Outstanding => _done.CurrentCount;

    public long Faults => Interlocked.Read(ref _faults);

    /// <summary>
    /// The callback of every item queued with a cancelled token: an abandon that hands one back is told apart by it (the
    /// caller's <see cref="AbandonedWorkItem.Run"/> skips it too, and the pool does not count that skip).
    /// </summary>
    public static readonly Action<object?> CancelledCallback = static s => ((Item)s!).Run();

    /// <summary>How many items this round queued with a token cancelled beforehand: each must be skipped.</summary>
    public long ExpectedSkips { get; private set; }

    public void QueueAll(SlimThreadPool pool)
    {
        var random = new Random(_seed);
        int half = Count / 2;
        for (int id = 0; id < half; id++)
        {
            int me = id;
            int kind = random.Next(100);
            int nested = half + id; // the second half of the ids belongs to nested children, or is queued directly
            if (kind < 60)
            {
                pool.Queue(static s => ((Item)s!).Run(), new Item(this, me));
                pool.Queue(static s => ((Item)s!).Run(), new Item(this, nested));
            }
            else if (kind < 75)
            {
                int ticks = random.Next(1, 200);
                pool.Queue(() => { Spin(ticks); Mark(me); });
                pool.Queue(() => { Spin(ticks); Mark(nested); });
            }
            else if (kind < 78)
            {
                int ms = random.Next(1, 4);
                pool.Queue(() => { pool.RunBlocking(() => Thread.Sleep(ms)); Mark(me); }); // says so: a spare covers
                pool.Queue(() => { Thread.Sleep(ms); Mark(nested); }); // does not: the starvation guard may
            }
            else if (kind < 88)
            {
                Interlocked.Add(ref _faults, 2);
                pool.Queue(() => throw new SoakFault(this, me));
                pool.Queue(() => throw new SoakFault(this, nested));
            }
            else if (kind < 93)
            {
                pool.Queue(() =>
                {
                    Mark(me);

                    // From inside the pool: the worker's own deque when stealing. Refused once the pool is shutting
                    // down (the last round on each pool races a shutdown): then the item runs here, as a user would.
                    if (!pool.TryQueue(() => Mark(nested)))
                    {
                        Mark(nested);
                    }
                });
            }
            else if (kind < 96)
            {
                ExpectedSkips++;
                pool.Queue(CancelledCallback, new Item(this, me), s_cancelled);
                pool.Queue(() => Mark(me));
                pool.Queue(() => Mark(nested), s_live.Token);
            }
            else
            {
                pool.Queue(() => _ = RunAsync(me, nested));
            }
        }

        if (Count % 2 == 1)
        {
            pool.Queue(() => Mark(Count - 1));
        }
    }

    public bool WaitAll(TimeSpan timeout) => _done.Wait(timeout);

    public (int Id, int Count)? FirstBadSlot()
    {
        for (int i = 0; i < _slots.Length; i++)
        {
            int count = Volatile.Read(ref _slots[i]);
            if (count != 1)
            {
                return (i, count);
            }
        }

        return null;
    }

    public void MarkFault(int id) => Mark(id);

    private void Mark(int id)
    {
        if (Interlocked.Increment(ref _slots[id]) == 1)
        {
            _done.Signal();
        }
    }

    private async Task RunAsync(int me, int nested)
    {
        await Task.Yield();
        Mark(me);
        await Task.Delay(1).ConfigureAwait(false);
        Mark(nested);
    }

    private static void Spin(int ticks)
    {
        long until = System.Diagnostics.Stopwatch.GetTimestamp() + (ticks * System.Diagnostics.Stopwatch.Frequency / 10_000_000);
        while (System.Diagnostics.Stopwatch.GetTimestamp() < until)
        {
        }
    }

    private sealed class Item(SoakRound round, int id)
    {
        public void Run() => round.Mark(id);
    }
}
