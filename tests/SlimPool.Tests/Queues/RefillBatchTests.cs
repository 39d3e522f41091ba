using SlimPool.Queues;
using SlimPool.Tests.Infrastructure;
using static SlimPool.Tests.Queues.WorkQueueContractTests;

namespace SlimPool.Tests.Queues;

/// <summary>A work-stealing worker's batch from the shared queue: oldest first, each entry taken once, refills racing thieves.</summary>
public sealed class RefillBatchTests
{
    [Fact]
    public void TryTake_AfterFill_TakesOldestFirstThenReportsEmpty()
    {
        var batch = new RefillBatch();
        batch.Fill([Entry(0), Entry(1), Entry(2)]);
        Assert.Equal(3, batch.Count);

        var taken = new List<int>();
        while (batch.TryTake(out QueuedWorkItem item))
        {
            taken.Add(IdOf(item));
        }

        Assert.Equal([0, 1, 2], taken);
        Assert.True(batch.IsEmpty);
    }

    [Fact]
    public void Fill_ShorterThanThePreviousBatch_NeverReturnsAnOldEntry()
    {
        var batch = new RefillBatch();
        batch.Fill([.. Enumerable.Range(0, RefillBatch.Capacity).Select(Entry)]);
        while (batch.TryTake(out _))
        {
        }

        batch.Fill([Entry(100)]);
        Assert.True(batch.TryTake(out QueuedWorkItem item));
        Assert.Equal(100, IdOf(item));
        Assert.False(batch.TryTake(out _));
    }

    [Fact]
    public void ClearTaken_AfterEveryEntryWasTaken_DropsTheReferences()
    {
        var batch = new RefillBatch();
        WeakReference state = FillAndTakeOne(batch);
        batch.ClearTaken();
        GC.Collect();
        GC.WaitForPendingFinalizers();
        Assert.False(state.IsAlive, "the batch still referenced an entry that was taken");
    }

    [Fact]
    public void TryTake_OwnerRefillingWhileThievesTake_EachEntryTakenExactlyOnce()
    {
        const int Entries = 300_000;
        var batch = new RefillBatch();
        var ledger = new int[Entries];
        int next = 0;
        using var stop = new CancellationTokenSource();
        Thread[] thieves = [.. Enumerable.Range(0, 2).Select(_ => new Thread(() =>
        {
            while (!stop.IsCancellationRequested || !batch.IsEmpty)
            {
                if (batch.TryTake(out QueuedWorkItem item))
                {
                    Interlocked.Increment(ref ledger[IdOf(item)]);
                }
            }
        }))];
        foreach (Thread thief in thieves)
        {
            thief.Start();
        }

        var buffer = new QueuedWorkItem[RefillBatch.Capacity];
        var random = new Random(7);
        while (next < Entries)
        {
            // The owner: take one now and then (as it runs its own items), refill only once the batch is empty.
            if (random.Next(4) == 0 && batch.TryTake(out QueuedWorkItem own))
            {
                Interlocked.Increment(ref ledger[IdOf(own)]);
            }

            if (batch.IsEmpty)
            {
                int count = Math.Min(Entries - next, 1 + random.Next(RefillBatch.Capacity));
                for (int i = 0; i < count; i++)
                {
                    buffer[i] = Entry(next++);
                }

                batch.Fill(buffer.AsSpan(0, count));
            }
        }

        stop.Cancel();
        foreach (Thread thief in thieves)
        {
            Assert.True(thief.Join(Bounded.Timeout), "a thief did not finish");
        }

        while (batch.TryTake(out QueuedWorkItem rest))
        {
            Interlocked.Increment(ref ledger[IdOf(rest)]);
        }

        TakenOnce.AssertEach(ledger);
    }

    [System.Runtime.CompilerServices.MethodImpl(System.Runtime.CompilerServices.MethodImplOptions.NoInlining)]
    private static WeakReference FillAndTakeOne(RefillBatch batch)
    {
        var state = new object();
        batch.Fill([new QueuedWorkItem((Action<object?>)(static _ => { }), state, context: null)]);
        Assert.True(batch.TryTake(out _));
        return new WeakReference(state);
    }
}
