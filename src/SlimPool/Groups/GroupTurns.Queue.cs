using System.Diagnostics;
using SlimPool.Queues;

namespace SlimPool.Groups;

/// <summary>The group's queue: putting items in, taking them out, and dropping the queue once it is empty.</summary>
internal sealed partial class GroupTurns
{
    // Whether the queue now in the field is missing or empty. A queue read before it was replaced is empty: it was
    // retired, which only an empty queue can be.
    private bool IsQueueEmpty => Volatile.Read(ref _queue) is not { IsEmpty: false };

    /// <summary>
    /// Marks the group's queue drop as deferred by a worker; false if it already is (by this worker or another), and
    /// then the worker that holds it drops it. A race may let two workers hold it, which only drops it twice.
    /// </summary>
    public bool TryDeferDrop()
    {
        if (Volatile.Read(ref _dropDeferred) != 0)
        {
            return false;
        }

        Volatile.Write(ref _dropDeferred, 1);
        return true;
    }

    /// <summary>
    /// The deferred drop: clears the mark, then drops the queue if it is empty. The exchange is a full fence before the
    /// look at the queue, so a turn that ended on the queue and saw the mark still set ended before this look; if the
    /// queue holds items now, their turn ends after the clear and defers the drop again.
    /// </summary>
    public void DropDeferred()
    {
        Interlocked.Exchange(ref _dropDeferred, 0);
        DropQueueIfEmpty();
    }

    /// <summary>
    /// Retires the queue if it is empty and clears the field; a producer that meets the retired queue first clears it
    /// itself (Enqueue). Both compare-and-swap from this queue, which is never installed again, so neither clears a
    /// newer one. Safe from any thread at any time, a turn running or not (see the class remarks).
    /// </summary>
    public void DropQueueIfEmpty()
    {
        LockFreeQueue<CompactHeadAndTail>? queue = Volatile.Read(ref _queue);
        if (queue is not null && queue.TryRetire())
        {
            Interlocked.CompareExchange(ref _queue, null, queue);
        }
    }

    private void Enqueue(in QueuedWorkItem item)
    {
        LockFreeQueue<CompactHeadAndTail> queue = Volatile.Read(ref _queue) ?? InstallQueue();
        while (!queue.TryEnqueue(item))
        {
            // Retired between the read and the claim: the item is not in it. Clear the field for the retirer if it has
            // not yet (so that this does not spin on it), and enqueue into the queue that replaces it.
            Interlocked.CompareExchange(ref _queue, null, queue);
            queue = Volatile.Read(ref _queue) ?? InstallQueue();
        }

        // The claim in TryEnqueue was a compare-and-swap, a full fence, before this read of _turns: see the class remarks.
        // With every turn held, the holders take the item, once one of them is published.
        if (TryTakeTurn(PublisherOne, out long seen))
        {
            PublishTaken(preferLocal: true);
        }
        else
        {
            WaitForPublishedTurn(seen);
        }
    }

    // A batch goes into the queue the field holds, as Enqueue's item does; if that queue is retired part-way (its items
    // so far all taken: only an empty queue is retired), the rest follows into the queue that replaces it, in order. Then
    // it takes turns as Enqueue does, one for each item until the group holds all it may: each turn taken after every
    // item was claimed (the last claim a full fence) pairs with an ending turn's look as one item's does.
    private void EnqueueBatch<TBatch>(scoped ref TBatch batch)
        where TBatch : IBatchSource, allows ref struct
    {
        int count = batch.Count;
        int added = 0;
        LockFreeQueue<CompactHeadAndTail> queue = Volatile.Read(ref _queue) ?? InstallQueue();
        while ((added += queue.EnqueueBatchUntilRetired(ref batch, added, count - added)) < count)
        {
            Interlocked.CompareExchange(ref _queue, null, queue);
            queue = Volatile.Read(ref _queue) ?? InstallQueue();
        }

        Debug.Assert(count > 0, "an empty batch is accepted without a look at the queue");
        int taken = 0;
        long seen;
        while (TryTakeTurn(PublisherOne, out seen))
        {
            PublishTaken(preferLocal: true);
            if (++taken == count)
            {
                return;
            }
        }

        // A turn this call published covers every item of the batch; with none, the batch waits as Enqueue's item does.
        if (taken == 0)
        {
            WaitForPublishedTurn(seen);
        }
    }

    // Installs a fresh queue where there is none; the producer that loses the race uses the winner's.
    private LockFreeQueue<CompactHeadAndTail> InstallQueue()
    {
        var fresh = new LockFreeQueue<CompactHeadAndTail>(InitialQueueLength);
        return Interlocked.CompareExchange(ref _queue, fresh, null) ?? fresh;
    }

    // Takes the group's oldest queued item, giving back the pool capacity slot it held. Every item is in the queue the
    // field holds (see the remarks), so a missing queue means an empty one.
    private bool TryTake(out QueuedWorkItem item)
    {
        LockFreeQueue<CompactHeadAndTail>? queue = Volatile.Read(ref _queue);
        if (queue is not null && queue.TryDequeue(out item))
        {
            _pool.ReleaseSlot();
            return true;
        }

        item = default;
        return false;
    }
}
