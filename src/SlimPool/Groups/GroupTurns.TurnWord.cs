using System.Diagnostics;
using System.Runtime.CompilerServices;
using SlimPool.Scheduling;

namespace SlimPool.Groups;

/// <summary>The turn word: taking a turn, publishing it, and waiting behind a turn whose producer has not yet published
/// it.</summary>
internal sealed partial class GroupTurns
{
    // A producer that took a turn publishes it: QueueAccepted puts it where the pool's workers and a drain look, with a
    // full fence after; then the producer leaves the publishers' count (an add, a full fence), so a producer that waits
    // for the publish (WaitForPublishedTurn) sees the turn there once it sees the add. The add does not move the
    // generation: by then the turn may have run and ended already (its end moved it), and a waiter that took this add
    // for a turn's end could return on a later producer's turn, still unpublished. The add comes before the publish's
    // finish, which wakes a worker and, past the pool's finish, runs the turn on this thread: a producer on this thread
    // inside that turn must not wait for this very publish. Should the enqueue throw (a custom queue, out of memory),
    // the producer still leaves the count, so that no later call waits for a publish that will never come; the turn
    // stays held, since the enqueue may have put it where the workers look before it threw (a second turn of a serial
    // group must never be taken while it may run).
    private void PublishTaken(bool preferLocal)
    {
        IAcceptedWorkPublisher publisher = _pool.Publisher;
        bool queued;
        try
        {
            queued = publisher.QueueAccepted(this, preferLocal, Priority);
        }
        catch
        {
            Interlocked.Add(ref _turns, -PublisherOne);
            throw;
        }

        long left = Interlocked.Add(ref _turns, -PublisherOne);
        Debug.Assert(PublishersIn(left) < PublishersIn(left + PublisherOne), "this producer was counted a publisher");
        publisher.FinishAccepted(queued);
    }

    // Called with the word read after an item was seen in the queue (a producer's claim, an ending turn's look) and a
    // take refused: leaves that item to the turns held once one of them is published (see the remarks, "A queue call
    // returns behind a published turn"). It returns at once when the word shows more turns than publishers; otherwise
    // it waits for a read that does, or for a later generation (a turn ended since, and its look saw the item or found it
    // taken). The wait is another producer's enqueue, longer only while that producer is preempted inside it.
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private void WaitForPublishedTurn(long seen)
    {
        if (TurnsIn(seen) <= PublishersIn(seen))
        {
            WaitForPublish(seen & GenerationMask);
        }
    }

    // The spin sleeps now and then (so a publisher preempted by this thread gets to run), and a sleep throws at a
    // Thread.Interrupt: the item is accepted by now, so the interrupt is kept for the caller's next wait instead.
    [MethodImpl(MethodImplOptions.NoInlining)]
    private void WaitForPublish(long generation)
    {
        var spinner = default(SpinWait);
        bool interrupted = false;
        while (true)
        {
            try
            {
                spinner.SpinOnce();
            }
            catch (ThreadInterruptedException)
            {
                interrupted = true;
            }

            long word = Volatile.Read(ref _turns);
            if (TurnsIn(word) > PublishersIn(word) || (word & GenerationMask) != generation)
            {
                break;
            }
        }

        if (interrupted)
        {
            Thread.CurrentThread.Interrupt();
        }
    }

    private static int TurnsIn(long word) => (int)(word & TurnMask);

    private static int PublishersIn(long word) => (int)((word >> 32) & 0xFFFF);

    // Takes a turn below the limit; a producer that will publish it counts itself a publisher in the same swap
    // (PublisherOne), a turn that runs on does not (0). Either way seen is the word last read.
    private bool TryTakeTurn(long publisher, out long seen)
    {
        long turns = Volatile.Read(ref _turns);
        while (TurnsIn(turns) < _maxConcurrency)
        {
            long found = Interlocked.CompareExchange(ref _turns, turns + 1 + publisher, turns);
            if (found == turns)
            {
                seen = found;
                return true;
            }

            turns = found;
        }

        seen = turns;
        return false;
    }
}
